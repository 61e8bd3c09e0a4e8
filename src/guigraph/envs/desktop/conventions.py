"""The desktop's conventions: no ids (widgets carry roles, names and boxes), applications
opened from their desktop entries, dialogs as workflow steps and GTK's roles of fields."""

from __future__ import annotations

from dataclasses import replace

from guigraph.envs.conventions import WEB, IdScheme

#: Built on the web's English-task profile (the task language is the same), with the
#: desktop's own words: AT-SPI roles, dialog buttons, no launcher.
DESKTOP = replace(
    WEB,
    name="desktop",
    id_scheme=IdScheme.NONE,
    home_apps=frozenset({""}),
    # A desktop dialog (Save As, Find and Replace) is a step of the workflow, not a pop-up in
    # its way: no button label closes one as a distraction.
    dismiss_labels=frozenset(),
    loading_texts=("loading", "please wait"),
    transient_words=frozenset({"tooltip", "notification"}),
    opens_apps_by="launcher",
    field_classes=frozenset({"text", "entry", "password_text", "spin_button", "combo_box"}),
    container_classes=("filler", "panel", "scroll_pane", "viewport", "layered_pane"),
    title_bar_classes=("title_bar",),
)
