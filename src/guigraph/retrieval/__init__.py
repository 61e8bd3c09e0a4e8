"""Graph RAG: from a task to the traces, subgraph and filled slots the team works from."""
