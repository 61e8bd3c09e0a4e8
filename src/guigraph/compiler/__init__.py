"""The workflow compiler: the model-free planner that turns a task into steps on the graph.

Everything the embedded (model-free) team plans and acts with lives here, so a change to
binding, stitching or acting is made in one place (docs/compiler.md):

- ``slots``, ``values``: the words of an instruction and the values known at each place;
- ``script``: a trace unrolled into steps tied to graph states, and bound to a new task;
- ``fields``, ``stitch``: what a task asks for, and the plan chosen (or stitched) for it;
- ``grounding``: a step placed on the current screen's elements;
- ``policy``: the knowledge base's in-memory index and the per-episode policy that follows
  the plan.
"""
