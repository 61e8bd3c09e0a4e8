"""``guigraph replay``: the team teacher-forced over a split's test episodes → STEPS.jsonl."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from guigraph.agents.team import TeamOptions
    from guigraph.eval.replay import MakeTeam
    from guigraph.graph.kb import KnowledgeBase

POLICIES = ("graph", "model", "hybrid")


def register(app: typer.Typer) -> None:
    app.command("replay")(replay)


def replay(
    data_dir: Annotated[
        Path, typer.Argument(help="Episodes in the GUIOdyssey layout (annotations/, splits/...).")
    ],
    kb: Annotated[Path, typer.Option("--kb", help="Knowledge base built from the train part.")],
    out: Annotated[Path, typer.Option("--out", help="STEPS.jsonl to write (resumed if present).")],
    split: Annotated[
        str,
        typer.Option("--split", help="Split whose test part is replayed: splits/NAME_split.json"),
    ] = "random",
    policy: Annotated[
        str, typer.Option("--policy", help="Who acts: graph (no model), model or hybrid.")
    ] = "graph",
    model: Annotated[
        str | None, typer.Option("--model", help="Model name, for --policy model|hybrid.")
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", help="OpenAI-compatible server, for --policy model|hybrid."),
    ] = None,
    memory: Annotated[
        str, typer.Option("--memory", help="graph, or trace (the paper's linear-memory baseline).")
    ] = "graph",
    verify: Annotated[str, typer.Option("--verify", help="Verifier: always or never.")] = "always",
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Replay only the first N test episodes.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed handed to the agent loop.")] = 0,
) -> None:
    """Run the team over the test episodes with teacher forcing; write one STEPS line per step.

    Refuses a knowledge base built from any of the episodes it would replay.
    """
    from guigraph.agents.team import TeamOptions
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.errors import GuigraphError
    from guigraph.eval.replay import check_kb_disjoint, replay_to_file
    from guigraph.graph.kb import KnowledgeBase

    try:
        dataset = OdysseyDataset(data_dir)
        ids = _test_ids(dataset, split)[:limit]
        knowledge = KnowledgeBase.open(kb)
    except (GuigraphError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    with knowledge:
        try:
            check_kb_disjoint(knowledge, ids)  # before the graph is loaded for nothing
            options = TeamOptions(memory=memory, verify=verify)
            make_team = team_factory(policy, knowledge, options, model, base_url)
            summary = replay_to_file(
                dataset, ids, make_team, out, kb=knowledge, seed=seed,
                on_episode=lambda i: typer.echo(f"replayed {i}", err=True),
            )  # fmt: skip
        except (GuigraphError, OSError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
    typer.echo(
        f"replayed {len(summary.replayed)} episodes ({summary.steps} steps, "
        f"{summary.unpredicted} left unpredicted after an early end); "
        f"{len(summary.skipped)} already in {out}. Score with: guigraph score {out}"
    )


def _test_ids(dataset: object, split: str) -> list[str]:
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.errors import DatasetError

    assert isinstance(dataset, OdysseyDataset)
    if not dataset.split_path(split).is_file():
        raise DatasetError(dataset.split_path(split), None, "a split file with a test part")
    ids = dataset.episode_ids(split=split, part="test")
    if not ids:
        raise DatasetError(dataset.split_path(split), "test", "at least one episode", "none")
    return ids


def team_factory(
    policy: str,
    kb: KnowledgeBase,
    options: TeamOptions,
    model: str | None = None,
    base_url: str | None = None,
) -> MakeTeam:
    """A function making a fresh team per episode for ``--policy``."""
    from guigraph.errors import ConfigError

    if policy not in POLICIES:
        raise ConfigError(f"--policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    if policy != "graph":
        raise ConfigError(
            f"--policy {policy} is not available yet: the model-backed team has not landed "
            "(use --policy graph)"
        )
    from guigraph.agents.graph_policy import GraphView
    from guigraph.agents.team import rule_team

    view = GraphView.load(kb)  # loaded once; each episode gets a fresh policy cursor
    return lambda episode: rule_team(kb, view, options)
