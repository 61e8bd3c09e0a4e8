"""``guigraph replay``: the team teacher-forced over a split's test episodes → STEPS.jsonl."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from guigraph.choices import Memory, Policy, Verify
from guigraph.cli import options

if TYPE_CHECKING:
    from rich.progress import Progress

    from guigraph.llm.hub import ModelHub


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
    policy: options.PolicyOption = Policy.GRAPH,
    model: options.Model = None,
    base_url: options.BaseUrl = None,
    memory: options.MemoryOption = Memory.GRAPH,
    verify: options.VerifyOption = Verify.ALWAYS,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Replay only the first N test episodes.")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed handed to the agent loop.")] = 0,
    model_config: options.ModelConfigFile = None,
    text_only: options.TextOnly = False,
    timeout: options.Timeout = None,
    max_tokens: options.MaxTokens = None,
    retries: options.Retries = None,
    coords: options.Coords = None,
    structured: options.Structured = None,
    model_set: options.ModelSet = None,
) -> None:
    """Run the team over the test episodes with teacher forcing; write one STEPS line per step.

    Refuses a knowledge base built from any of the episodes it would replay. This is the
    serial, single-file form of ``guigraph eval odyssey`` (which writes a run folder, runs
    episodes concurrently, locally or on Ray, and counts model faults).
    """
    from guigraph.agents.factory import team_factory
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.errors import GuigraphError
    from guigraph.eval.replay import check_kb_disjoint, replay_to_file
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.types import ODYSSEY_ACTIONS

    try:
        dataset = OdysseyDataset(data_dir)
        test_ids = _test_ids(dataset, split)
        ids = test_ids[:limit]
        knowledge = KnowledgeBase.open(kb)
    except (GuigraphError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    with knowledge:
        try:
            # The whole test part, not only the --limit ones: such a KB is unfit for the split.
            check_kb_disjoint(knowledge, test_ids)
            with ExitStack() as resources:
                models = options.role_models(
                    model, base_url, model_config, text_only, timeout, max_tokens, retries,
                    coords, structured, model_set,
                )  # fmt: skip
                # The decider is offered GUIOdyssey's actions only: others would score wrong.
                make_team, hub = team_factory(
                    policy, knowledge, resources, memory=memory, verify=verify, models=models,
                    action_space=ODYSSEY_ACTIONS, usage_path=_usage_path(out),
                )  # fmt: skip
                progress = resources.enter_context(_progress())
                task = progress.add_task("replaying", total=len(ids))
                summary = replay_to_file(
                    dataset, ids, make_team, out, kb=knowledge, seed=seed,
                    on_episode=lambda _: progress.advance(task),
                )  # fmt: skip
                usage = _save_usage(hub, out)
        except (GuigraphError, OSError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
    typer.echo(
        f"replayed {len(summary.replayed)} episodes ({summary.steps} steps, "
        f"{summary.unpredicted} left unpredicted after an early end); "
        f"{len(summary.skipped)} already in {out}. Score with: guigraph score {out}"
    )
    if usage is not None:
        typer.echo(f"model usage of this run: {usage}")


def _progress() -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
        TimeRemainingColumn(), transient=True,
    )  # fmt: skip


def _usage_path(out: Path) -> Path:
    return out.with_name(out.stem + ".usage.json")


def _save_usage(hub: ModelHub | None, out: Path) -> Path | None:
    if hub is None:
        return None
    return hub.save_usage(_usage_path(out))


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
