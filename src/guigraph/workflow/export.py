"""Export: the plan the model-free team would follow for a task, as a workflow file.

The plan is the compiler's own (``GraphPolicy.make_plan`` on graph RAG's context, as a run
makes it), not derived again: each script step becomes a workflow step whose target carries
every locator the recorded screen gives (id, text, description, the label beside it, its rank
among its kind, its box), whose typed text names parameters (``{product}``), and whose
expected state is the graph state it leads to with a few elements that identify it. A value
the task gives becomes a parameter typed from the values recorded for it; a value read off an
earlier screen becomes a variable that step reads (``read: {price: ...}``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from guigraph.agents.observer import RuleObserver
from guigraph.agents.roles import ElementView, SemanticState
from guigraph.compiler.values import label_in_instruction, named_part
from guigraph.envs import conventions
from guigraph.geometry import ScreenSize
from guigraph.graph.records import SlotKey
from guigraph.types import ActionType, Observation, Task
from guigraph.workflow.forms import assign, value_words
from guigraph.workflow.locate import caption_of, facts_of, item_family, reading_order
from guigraph.workflow.schema import (
    Check,
    Expect,
    Fact,
    Parameter,
    Position,
    Start,
    Step,
    StepAction,
    Target,
    Workflow,
    World,
    fill,
    placeholders,
)
from guigraph.workflow.values import learn_type

if TYPE_CHECKING:
    from guigraph.compiler.index import GraphView
    from guigraph.compiler.script import ScriptStep
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.records import Node

#: Examples kept per parameter.
MAX_EXAMPLES = 5
_SLOT = re.compile(r"\{(text\d+)\}")
_PLAIN = {
    ActionType.SCROLL: StepAction.SCROLL,
    ActionType.PRESS_BACK: StepAction.BACK,
    ActionType.PRESS_HOME: StepAction.HOME,
    ActionType.OPEN_APP: StepAction.OPEN_APP,
    ActionType.WAIT: StepAction.WAIT,
}


def plan_for(
    kb: KnowledgeBase, view: GraphView, instruction: str, start_app: str | None = None
) -> list[ScriptStep]:
    """The script the model-free team would follow for ``instruction`` (its first plan);
    ``start_app``: the app the task starts in, whose own recordings the plan is made from
    where the knowledge base has some (two sites may word their tasks alike)."""
    from guigraph.agents.team import TeamOptions
    from guigraph.compiler.forms import in_screen_forms
    from guigraph.compiler.policy import GraphPolicy
    from guigraph.compiler.script import ScriptStep, is_dismissal
    from guigraph.graph.records import ActionTemplate
    from guigraph.retrieval.context import retrieve

    options = TeamOptions()
    asked = in_screen_forms(instruction, view.values)
    context = retrieve(kb, asked, k=options.top_k, token_budget=options.token_budget, graph=view)
    if start_app and not conventions.active().is_home(start_app):
        own = tuple(t for t in context.traces if start_app in t.trace.apps)
        if own:
            context = dataclasses.replace(context, traces=own)
    policy = GraphPolicy(view)
    policy.make_plan(Task("workflow-export", instruction), context)
    script = list(policy.script)
    # Where a step leads elsewhere than the next step's state (a stitched plan: the note
    # is saved, the next part starts on the home screen), the team routes through the
    # graph as it acts; the file writes that route down.
    routed: list[ScriptStep] = []
    for i, step in enumerate(script):
        routed.append(step)
        following = script[i + 1] if i + 1 < len(script) else None
        if following is not None and step.jumps_to is not None and step.jumps_to != following.node:
            route = policy._route(step.jumps_to, following.node)
            # A route out of a pop-up the recording met is the pop-up's dismissal: settling
            # does that when a pop-up comes, so it is no step of the workflow.
            if not any(is_dismissal(s.template.target_label) for s in route):
                routed += route
            if not route and following.home and not step.home:
                # No recorded way back to the launcher: the home key is one from anywhere.
                home = ActionTemplate(type=ActionType.PRESS_HOME)
                routed.append(ScriptStep(step.jumps_to, home, following.node, step.app, "route"))
    return routed


@dataclass
class _Names:
    """Parameters and variables as the export names them, by the value they stand for."""

    instruction: str = ""
    by_value: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, Parameter] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)

    def name(self, wanted: str) -> str:
        base = _identifier(wanted) or "value"
        name, n = base, 2
        while name in self.taken:
            name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        return name

    def parameter(
        self, value: str, wanted: str, examples: Sequence[str], options: Sequence[str]
    ) -> str:
        """The parameter standing for ``value`` (one per value: the product searched for and
        tapped is one parameter)."""
        if value in self.by_value:
            name = self.by_value[value]
            known = self.parameters.get(name)
            if known is not None and options and not known.options:
                self.parameters[name] = _typed(name, value, examples, options)
            return name
        name = self.name(wanted)
        self.by_value[value] = name
        self.parameters[name] = _typed(name, value, examples, options)
        return name


def _typed(name: str, value: str, examples: Sequence[str], options: Sequence[str]) -> Parameter:
    seen = list(dict.fromkeys([value, *examples]))[:MAX_EXAMPLES]
    kind = learn_type(seen, options)
    return Parameter(
        name=name, type=kind, examples=tuple(seen), default=value, required=False,
        options=tuple(options) if kind.value == "choice" else (),
    )  # fmt: skip


def _identifier(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    name = "_".join(words[:3])
    return f"p_{name}" if name[:1].isdigit() else name


def to_workflow(
    script: Sequence[ScriptStep], view: GraphView, instruction: str, world: World,
    name: str = "",
) -> Workflow:  # fmt: skip
    """The workflow file of a bound script."""
    names = _Names(instruction)
    steps: list[Step] = []
    fields = form_fields(script, view, instruction)
    for i, step in enumerate(script):
        after = script[i + 1].node if i + 1 < len(script) else None
        converted = _convert(step, after, steps, view, names, field=fields.get(i))
        if converted is not None:
            steps.append(converted)
    if not steps:
        raise ValueError(f"the knowledge base has no plan for {instruction!r}")
    params = tuple(names.parameters.values())
    return Workflow(
        name=name or _identifier(instruction).replace("_", "-") or "workflow",
        description=instruction, world=world, start=_start(script, view),
        parameters=params, steps=tuple(steps), checks=_checks(steps, params),
    )  # fmt: skip


def detour_steps(
    detour: Sequence[ScriptStep], view: GraphView, value: str, placeholder: str,
    after: int | None, names: _Names | None = None,
) -> list[Step]:  # fmt: skip
    """A recorded way to reach a value (``compiler.policy.find_value_detour``: new message,
    type the name, tap the suggestion) as workflow steps typing and tapping ``placeholder``
    (the run's ``{param}``) where the recording had its own value. ``names``: the
    workflow's parameters, when the steps go into its file."""
    names = names if names is not None else _Names()
    names.by_value[value] = placeholder.strip("{}")
    steps: list[Step] = []
    for i, step in enumerate(detour):
        following = detour[i + 1].node if i + 1 < len(detour) else after
        if step.template.type is ActionType.TYPE and step.text == value:
            steps.append(
                Step(
                    action=StepAction.TYPE, value=placeholder, expect=_expect(step, following, view)
                )
            )
            continue
        converted = _convert(step, following, steps, view, names, alternatives=False)
        if converted is not None:
            steps.append(converted)
    return steps


def _start(script: Sequence[ScriptStep], view: GraphView) -> Start:
    """The app of the first state the plan reaches that is not the home screen."""
    for step in script:
        for where in (step.node, step.jumps_to):
            node = view.nodes.get(where) if where is not None else None
            if node is not None and node.app and not conventions.active().is_home(node.app):
                return Start(app=node.app)
    return Start()


def _checks(steps: Sequence[Step], params: Sequence[Parameter]) -> tuple[Check, ...]:
    """The last typed text the last screen should still show is left to the world's checker;
    here, the values the workflow's last state was expected to show."""
    last = steps[-1].expect
    if last is None:
        return ()
    return tuple(Check(shows=f.text) for f in last.shows if f.text)


def _convert(
    step: ScriptStep, after: int | None, done: list[Step], view: GraphView, names: _Names,
    alternatives: bool = True, field: ElementView | None = None,
) -> Step | None:  # fmt: skip
    """Script step ``step`` as a workflow step; ``after`` is the state the plan acts in next;
    ``alternatives``: a tap on a value gets the graph's way to a value no screen lists;
    ``field``: the recorded screen's field a tap goes to (``form_fields``)."""
    kind = step.template.type
    expect = _expect(step, after, view)
    if kind in (ActionType.CLICK, ActionType.LONG_PRESS):
        action = StepAction.TAP if kind is ActionType.CLICK else StepAction.LONG_PRESS
        target = _target(step, view, names, field)
        # A suggestion tapped right after typing its value has no other way to it.
        typed = bool(done) and done[-1].action is StepAction.TYPE and target.text == done[-1].value
        wanted = alternatives and not typed
        otherwise = _otherwise(step, target, after, view, names) if wanted else ()
        return Step(action=action, target=target, expect=expect, otherwise=otherwise)
    if kind is ActionType.TYPE:
        value = _typed_value(step, done, view, names)
        return Step(action=StepAction.TYPE, value=value, expect=expect)
    plain = _PLAIN.get(kind)
    if plain is None:
        return None  # complete / impossible end the plan; the runner ends the run itself
    direction = step.template.direction if plain is StepAction.SCROLL else None
    app = step.template.app if plain is StepAction.OPEN_APP else None
    return Step(action=plain, expect=expect, direction=direction, app=app)


def _otherwise(
    step: ScriptStep, target: Target, after: int | None, view: GraphView, names: _Names
) -> tuple[Step, ...]:
    """For a tap on a value of the run (``{contact}``): the graph's recorded way to a value
    no screen lists (start a new conversation, type the name, tap the suggestion), so that a
    row whose value is not listed runs as the file says rather than by healing."""
    from guigraph.compiler.policy import find_value_detour

    if not placeholders(target.text):
        return ()
    detour = find_value_detour(view, step.node, step)
    if not detour:
        return ()
    return tuple(detour_steps(detour, view, step.label, target.text or "", after, names))


# -- targets ----------------------------------------------------------------------------------
def screen_state(node: Node) -> SemanticState:
    """A graph state's example screen as the observer sees it (roles, labels, keys)."""
    observation = Observation(ScreenSize(1000, 1000), elements=node.example_elements, app=node.app)
    return RuleObserver().observe(observation, None)


def recorded_element(step: ScriptStep, state: SemanticState) -> ElementView | None:
    template = step.template
    if template.target_id:
        same = [v for v in state.elements if v.key == template.target_id]
        if same and (template.point is None or _holds(same[0], template.point)):
            return same[0]
        # A key that names an element by its place among unnamed ones ("the first empty
        # field") is another element at each step: the recorded point says which.
        there = [v for v in state.elements if same and v.role == same[0].role]
        at = [v for v in there if template.point is not None and _holds(v, template.point)]
        if at or same:
            return (at or same)[0]
    label = template.target_label.strip().lower()
    named = [v for v in state.elements if label and v.label.strip().lower() == label]
    return named[0] if named else None


def _holds(view: ElementView, point: tuple[float, float]) -> bool:
    b = view.bbox
    return b.x1 <= point[0] <= b.x2 and b.y1 <= point[1] <= b.y2


def form_fields(
    script: Sequence[ScriptStep], view: GraphView, instruction: str
) -> dict[int, ElementView]:
    """Taps on fields the recording could name only by place (no label, no id of their own),
    each followed by typing a value of the task, per state: which field of the state's
    recorded screen each one is, by matching the fields' captions to what the task says
    around each value (``forms.assign``). The recorded point is no guide there: the state's
    screen may come from another recording, where the page ordered its fields otherwise."""
    taps: dict[int, list[tuple[int, str]]] = {}
    for i, (step, following) in enumerate(itertools.pairwise(script)):
        template = step.template
        value = (following.text or "").strip()
        if (
            template.type is ActionType.CLICK
            and not template.target_label.strip()
            and (not template.target_id or template.target_id.startswith("@"))
            and following.template.type is ActionType.TYPE
            and following.node == step.node
            and value
            and value.lower() in instruction.lower()
        ):
            taps.setdefault(step.node, []).append((i, value))
    chosen: dict[int, ElementView] = {}
    for where, form in taps.items():
        node = view.nodes.get(where)
        if node is None or len(form) < 2:
            continue
        state = screen_state(node)
        fields = [v for v in state.elements if v.role == "field"]
        captions = [caption_of(f, state.elements) for f in fields]
        if len(fields) < len(form) or not all(captions):
            continue
        picks = assign(captions, [value_words(instruction, value) for _, value in form])
        pairs = zip(form, picks, strict=True)
        chosen.update({i: fields[pick] for (i, _), pick in pairs if pick is not None})
    return chosen


def _target(
    step: ScriptStep, view: GraphView, names: _Names, field: ElementView | None = None
) -> Target:
    node = view.nodes.get(step.node)
    state = screen_state(node) if node is not None else None
    element = field or (recorded_element(step, state) if state is not None else None)
    role = element.role if element is not None else None
    value = step.label.strip()
    bound = value and value != step.template.target_label.strip()
    # An item of a list the task names ("Set brightness to 100%", recorded with 100% too)
    # is as much the task's value as one it binds anew.
    named = bool(
        value
        and item_family(step.template.target_id)
        and label_in_instruction(value, names.instruction)
    )
    # A label the task names within marks (the page "chess" as the link ":chess"), tapped
    # where the recordings tapped several values: the task's value, whatever run the plan took.
    before, said, after = named_part(value, names.instruction) if value else ("", "", "")
    valued = bool(said) and view.values.is_value_label(step.node, value, names.instruction)
    if step.open_value or bound or named or valued:
        # A value of the task: the recorded item's id and place named another item. Marks
        # around it stay in the file; the parameter is the value the task says (the one
        # typed into a search before it too).
        unmarked = functools.partial(_unmarked, before=before, after=after)
        options = _family_labels(element, state) if element and state else []
        recorded = step.template.target_label
        examples = [unmarked(recorded)] if recorded else []
        param = names.parameter(
            unmarked(value), _family(step.template.target_id) or "choice", examples,
            [unmarked(o) for o in options],
        )  # fmt: skip
        return Target(text=_literal(before) + "{" + param + "}" + _literal(after), role=role)
    data: dict[str, object] = {}
    if element is not None and element.element.resource_id:
        data["id"] = element.element.resource_id
    elif step.template.target_id and not step.template.target_id.startswith("@"):
        data["id"] = step.template.target_id
    if value:
        data["text"] = value
    if element is not None and state is not None:
        desc = element.element.content_desc.strip()
        if desc and desc != value:
            data["description"] = desc
        caption = _caption(element, state)
        if caption:
            data["near"] = caption
        kind = reading_order([v for v in state.elements if v.role == element.role])
        data["position"] = Position(
            role=element.role, index=[v.index for v in kind].index(element.index)
        )
        b = element.bbox
        data["box"] = (round(b.x1, 1), round(b.y1, 1), round(b.x2, 1), round(b.y2, 1))
    elif step.template.point is not None:
        x, y = step.template.point
        data["box"] = (max(0.0, x - 5), max(0.0, y - 5), min(1000.0, x + 5), min(1000.0, y + 5))
    data["role"] = role
    return Target.model_validate(data)


def _unmarked(label: str, before: str, after: str) -> str:
    """``label`` without the marks a value is written within on the screen (":hiking" ->
    "hiking"), where it has them."""
    text = label.strip()
    if (before or after) and text.startswith(before) and text.endswith(after):
        return text[len(before) : len(text) - len(after)]
    return label


def _caption(element: ElementView, state: SemanticState) -> str:
    """The text beside a control that names it (a field's caption), when it has one."""
    if (
        element.role not in ("field", "toggle")
        or element.element.text
        or element.element.content_desc
    ):
        return ""  # a control that names itself needs no caption
    return caption_of(element, state.elements)


def _family(key: str) -> str:
    """An item's id without what names the item: ``product_7`` -> ``product``."""
    name = conventions.active().parse_id(key).name
    if "_" not in name:
        return ""
    return name.rsplit("_", 1)[0]


def _family_labels(element: ElementView, state: SemanticState) -> list[str]:
    family = _family(element.key)
    if not family:
        return []
    kin = [v for v in state.elements if _family(v.key) == family and v.role == element.role]
    labels = [v.label for v in reading_order(kin) if v.label.strip()]
    return labels if len(labels) >= 2 else []


# -- typed values -----------------------------------------------------------------------------
def _typed_value(step: ScriptStep, done: list[Step], view: GraphView, names: _Names) -> str:
    """The step's text with each value of the task as ``{param}`` and each value read off a
    screen as ``{variable}`` (the step that reads it gets a ``read``)."""
    template_text = step.template.text or step.text or ""
    field_name = _field_name(done)
    screen = dict(step.screen_slots)

    def placeholder(slot: str) -> str:
        if slot in screen:
            return "{" + _read_variable(screen[slot].key, done, view, names) + "}"
        examples = _recorded_values(step, slot, view)
        # A value the plan could not take from the task keeps the recorded one, as the
        # team would type it; as a parameter, a person can set it.
        value = step.bound_values.get(slot) or (examples[0] if examples else "")
        return "{" + names.parameter(value, field_name or slot, examples, ()) + "}"

    # Braces the recording typed as they are (a secret's "{password}", filled by the world)
    # stay literal in the file: "{{password}}".
    parts = _SLOT.split(template_text)  # literal, slot, literal, slot, ...
    return "".join(
        _literal(part) if i % 2 == 0 else placeholder(part) for i, part in enumerate(parts)
    )


def _literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _field_name(done: list[Step]) -> str:
    """The field typed into: the last tap's target (its id's name, else its text)."""
    for step in reversed(done):
        if step.action is StepAction.TAP and step.target is not None:
            target = step.target
            if target.id:
                return conventions.active().parse_id(target.id).name or (target.text or "")
            return target.near or target.text or ""
    return ""


def _recorded_values(step: ScriptStep, slot: str, view: GraphView) -> list[str]:
    """What the recorded runs through this step's edge typed into ``slot``."""
    key = SlotKey(step.edge_id, slot)
    values: list[str] = []
    for trace in view.traces:
        if step.edge_id is not None and step.edge_id not in trace.edge_path:
            continue
        if step.edge_id is None and trace.episode_id != step.trace_id:
            continue
        value = trace.values.get(key)
        if value:
            values.append(value)
    return list(dict.fromkeys(values))[:MAX_EXAMPLES]


def _read_variable(key: str, done: list[Step], view: GraphView, names: _Names) -> str:
    """The variable holding the value of element ``key``, read after the last step whose
    expected state shows it (the step before otherwise)."""
    name = names.by_value.get(f"read:{key}")
    if name is not None:
        return name
    name = names.name(conventions.active().parse_id(key).name or "value")
    names.by_value[f"read:{key}"] = name
    target = Target(id=key) if not key.startswith("@") else Target()
    for i in range(len(done) - 1, -1, -1):
        expect = done[i].expect
        node = view.nodes.get(expect.state) if expect and expect.state is not None else None
        if node is not None and key in node.element_keys:
            target = _read_target(key, node)
            done[i] = done[i].model_copy(update={"read": {**done[i].read, name: target}})
            return name
    if done:
        done[-1] = done[-1].model_copy(update={"read": {**done[-1].read, name: target}})
    return name


def _read_target(key: str, node: Node) -> Target:
    """Where a value to read sits: its id (an id-less element has none), its rank among its
    kind and its box (its text is the value, so never a locator)."""
    state = screen_state(node)
    view = next(v for v in state.elements if v.key == key)
    kind = reading_order([v for v in state.elements if v.role == view.role])
    b = view.bbox
    return Target(
        id=view.element.resource_id or None,
        position=Position(role=view.role, index=[v.index for v in kind].index(view.index)),
        box=(round(b.x1, 1), round(b.y1, 1), round(b.x2, 1), round(b.y2, 1)), role=view.role,
    )  # fmt: skip


# -- expected states --------------------------------------------------------------------------
def _expect(step: ScriptStep, after: int | None, view: GraphView) -> Expect | None:
    """The state the plan acts in next (a pop-up the recording met on the way is not what a
    run must expect), else the state the step leads to."""
    where = after if after is not None else step.jumps_to
    where = where if where is not None else step.node
    node = view.nodes.get(where)
    if node is None:
        return None
    return Expect(state=where, screen=_short(node.description), app=node.app, shows=_facts(node))


def _short(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:80]


def _facts(node: Node) -> tuple[Fact, ...]:
    return facts_of(screen_state(node))


def export_task(
    kb: KnowledgeBase, task: str, env: str = "simphone", seed: int = 0,
    options: dict[str, Any] | None = None,
) -> Workflow:  # fmt: skip
    """The workflow of ``task`` (a task id of world ``env``, which then checks the run, or an
    instruction in words) as the model-free team would plan it on ``kb``; ``options``: the
    world's (a web task file and its parameters), written into the file without secrets."""
    from guigraph.compiler.index import GraphView
    from guigraph.envs import make

    world = make(env, **(options or {}))
    try:
        conventions_of_world = world.conventions
        the_task = world.make_task(task, seed)
        start_app = world.reset(the_task, seed).app
    finally:
        world.close()
    checked = not the_task.task_id.startswith("free/")
    spec = World(
        env=env, task=task.strip() if checked else None, seed=seed,
        options=_without_secrets(options or {}),
    )  # fmt: skip
    view = GraphView.load(kb)
    with conventions.using(conventions_of_world):
        script = plan_for(kb, view, the_task.instruction, start_app)
        if not script:
            raise ValueError(f"the knowledge base has no plan for {the_task.instruction!r}")
        workflow = to_workflow(script, view, the_task.instruction, spec)
    if not checked:
        return workflow
    # The world's checker knows the task's own values: it judges runs with those. Where the
    # world's task takes parameters (a web task file), each workflow parameter that holds one
    # of them is tied to it, so that a row's values become the task's (and are checked).
    values = {p.name: p.default or "" for p in workflow.parameters}
    taken = {k: str(v) for k, v in the_task.params.items() if k in _task_parameters(options)}
    tied = _tie(taken, workflow, values)
    world_spec = spec.model_copy(update={"values": values, "task_params": tied})
    return workflow.model_copy(update={"world": world_spec})


def _tie(taken: dict[str, str], workflow: Workflow, values: dict[str, str]) -> dict[str, str]:
    """Each task parameter's value as the workflow writes it: ``{param}`` where a parameter
    holds it, else the text a step types with it ("{wiki_text}." for "Bake at 180.")."""
    written = [f"{{{name}}}" for name in values]
    written += [s.value for s in workflow.steps if s.value and placeholders(s.value)]
    tied: dict[str, str] = {}
    for key, value in taken.items():
        for text in written:
            if fill(text, values).strip() == value.strip():
                tied[key] = text.strip()
                break
    return tied


#: The world option that holds a task's parameters (a web task file's ``--param``).
PARAMS_OPTION = "params"


def _task_file(options: dict[str, Any] | None) -> Any:
    if not options or not options.get("tasks"):
        return None
    from guigraph.envs.web import taskfile

    return taskfile.load(options["tasks"])


def _task_parameters(options: dict[str, Any] | None) -> set[str]:
    """Names of the task parameters a world takes (those its options may fix): a web world
    with a task file; its secrets are no values of a row."""
    tasks = _task_file(options)
    if tasks is None:
        return set()
    return {
        name
        for task in tasks.model.tasks
        for name, param in tasks.params_of(task).items()
        if param.type != "secret"
    }


def _without_secrets(options: dict[str, Any]) -> dict[str, Any]:
    """The world's options as the file keeps them: a secret parameter (a password) is given
    at run time, never written (without a task file, every parameter is a secret)."""
    params = options.get(PARAMS_OPTION)
    if not isinstance(params, dict):
        return dict(options)
    plain = _task_parameters(options)
    return {**options, PARAMS_OPTION: {k: v for k, v in params.items() if k in plain}}
