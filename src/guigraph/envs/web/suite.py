"""Why each MiniWoB++ task outside the suite is left out (``guigraph web tasks`` shows it).

The suite (``experts.SUITE``) holds multi-step tasks whose every step a recorded workflow can
name: a field, a button, or a value the instruction says. A task is left out when a workflow
graph has nothing to contribute or the web world cannot act it, for one of the reasons below.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Reason -> the tasks it keeps out of the suite.
LEFT_OUT: Mapping[str, tuple[str, ...]] = {
    "one action: no workflow to learn": (
        "click-button", "click-color", "click-dialog", "click-dialog-2", "click-link",
        "click-shape", "click-tab", "click-test", "click-test-2", "click-test-transfer",
        "click-widget", "focus-text", "focus-text-2", "identify-shape", "sign-agreement",
        "unicode-test",
    ),
    "needs dragging, drawing, hovering or a moving target (no drag action; a path, not a "
    "workflow)": (
        "bisect-angle", "chase-circle", "circle-center", "drag-box", "drag-circle", "drag-cube",
        "drag-items", "drag-items-grid", "drag-shapes", "drag-shapes-2", "drag-single-shape",
        "drag-sort-numbers", "draw-circle", "draw-line", "find-midpoint", "highlight-text",
        "highlight-text-2", "hover-shape", "moving-items", "number-checkboxes",
        "resize-textarea", "right-angle", "use-colorwheel", "use-colorwheel-2", "use-slider",
        "use-slider-2", "click-pie", "click-pie-nodelay", "click-shades", "grid-coordinate",
    ),
    "the answer is computed or read off the page, never said in the instruction (no value "
    "to bind)": (
        "ascending-numbers", "count-shape", "count-sides", "enter-text-2", "find-greatest",
        "find-word", "generate-number", "guess-number", "hot-cold", "odd-or-even", "read-table",
        "read-table-2", "simple-algebra", "simple-arithmetic", "text-transform",
        "visual-addition", "stock-market", "simon-says", "tic-tac-toe", "terminal",
        "text-editor", "button-delay",
    ),
    "the target hides in a place the instruction does not name (the n-th search result, a "
    "scrolled list, another page of results): search, not a workflow": (
        "search-engine", "click-scroll-list", "scroll-text", "scroll-text-2", "phone-book",
        "social-media", "social-media-all", "social-media-some", "buy-ticket", "order-food",
    ),
    "one name for several kinds of request, or free phrasings of one (the single-kind email "
    "tasks are in the suite)": (
        "email-inbox", "email-inbox-noscroll", "email-inbox-star-reply",
        "click-checkboxes-soft",
    ),
    "calendar pickers and autocompletion (a suggestion chosen by what it shows, not by the "
    "instruction; a flight or a meeting booked through several pickers): no demonstrator yet": (
        "book-flight", "book-flight-nodelay", "use-autocomplete",
        "use-autocomplete-nodelay", "daily-calendar",
    ),
    "a spinner that cancels keys: demonstrated by clicks on its arrows, the recorded click "
    "repeated as many times as the number the task says (compiler/counts.py); eval web and "
    "demo --tasks run it": (
        "use-spinner",
    ),
    "a read-only date field with a calendar pop-up: demonstrated by clicks on its Prev arrow "
    "and a day; a Prev per month back from December is a count the task never says, so a "
    "replay clicks as often as a demonstration of that month did; eval web and demo --tasks "
    "run them": (
        "choose-date", "choose-date-easy", "choose-date-medium", "choose-date-nodelay",
    ),
    "a form of several kinds of control in one request (a slider set to a number, the n-th "
    "radio button or field, a dropdown then a labelled button): no demonstrator yet": (
        "form-sequence", "form-sequence-2", "form-sequence-3",
    ),
    "a list of values of varying length (\"Select 8ai, xpHrXXA, cy8fNnP\"), its recorded step "
    "repeated once per value (compiler/lists.py): demonstrated outside the suite, eval web and "
    "demo --tasks run them; -large says up to 12 values, more than the 10-step budget holds": (
        "click-checkboxes", "click-checkboxes-large", "click-checkboxes-transfer",
    ),
    "demonstrated outside the suite (a date or time typed as said, a text read off the page, "
    "an inbox request in free words, fields named by the words beside them in any layout): "
    "eval web and demo --tasks run them": (
        "enter-date", "enter-time", "copy-paste", "copy-paste-2", "email-inbox-nl-turk",
        "email-inbox-forward-nl", "email-inbox-forward-nl-turk", "multi-layouts",
        "multi-orderings",
    ),
    "demonstrated outside the suite: the named target hides behind a tab, a section or a "
    "folder, opened one at a time until it shows (a search, not a fixed workflow): eval web "
    "and demo --tasks run them": (
        "click-tab-2", "click-tab-2-easy", "click-tab-2-medium", "click-tab-2-hard",
        "click-collapsible-2", "click-collapsible-2-nodelay", "navigate-tree",
    ),
    "a menu path (\"Select A>B>C\"): a submenu opens on hovering its parent, and a click on "
    "the parent selects it (no hover action)": (
        "click-menu", "click-menu-2",
    ),
    "a variant of a suite task with no new workflow (no animation delay)": (
        "click-collapsible-nodelay",
    ),
}  # fmt: skip


def left_out_reason(name: str) -> str | None:
    """Why ``name`` is not in the suite (None: it is in the suite, or unknown)."""
    return next((why for why, names in LEFT_OUT.items() if name in names), None)
