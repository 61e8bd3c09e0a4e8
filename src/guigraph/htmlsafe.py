"""Text into HTML pages safely: element text, attribute values and JSON inside <script>.

Every page guigraph writes (the KB explorer, the run report, the trajectory viewer) holds text
that came from tasks, models and screens; any of it may contain ``</script>``, ``<!--`` or
quotes. Element text and attributes go through :func:`text`; JSON for a script block goes
through :func:`script_json`, which writes ``<``, ``>`` and ``&`` as JSON escapes so that no
sequence can end the block or open an HTML comment (``<!--<script>`` would otherwise put the
parser in a state where the block's own ``</script>`` no longer ends it).
"""

from __future__ import annotations

import base64
import html
import json
from typing import Any

# Characters that change what the HTML tokenizer does inside <script>, and the two line
# separators older JavaScript parsers refuse inside string literals.
_SCRIPT_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def text(value: object) -> str:
    """Any value as HTML text, safe in element content and in quoted attribute values."""
    return html.escape("" if value is None else str(value), quote=True)


def script_json(value: Any) -> str:
    """JSON to put between ``<script type="application/json">`` and ``</script>``.

    ``JSON.parse(element.textContent)`` gives ``value`` back unchanged.
    """
    return json.dumps(value, ensure_ascii=False).translate(_SCRIPT_ESCAPES)


def data_uri(payload: bytes, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(payload).decode("ascii")
