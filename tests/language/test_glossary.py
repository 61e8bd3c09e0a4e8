"""A task in another language than the recordings, glossed through a kept dictionary."""

from __future__ import annotations

import gzip
from pathlib import Path

from guigraph.language import glossary
from guigraph.language.glossary import glosses
from guigraph.language.parse import parse

_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _b64(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, 64)
        digits = _DIGITS[digit] + digits
        if not number:
            return digits


def _dictionary(folder: Path, name: str, entries: dict[str, str]) -> None:
    """A dictd dictionary as Debian's FreeDict packages lay it out."""
    body, index = b"", []
    for head, text in entries.items():
        entry = f"{head} /x/\n{text}\n".encode()
        index.append(f"{head}\t{_b64(len(body))}\t{_b64(len(entry))}")
        body += entry
    (folder / f"freedict-{name}.index").write_text("\n".join(index) + "\n", encoding="utf-8")
    (folder / f"freedict-{name}.dict.dz").write_bytes(gzip.compress(body))


def test_a_word_is_glossed_by_the_entries_translating_any_form_of_it(tmp_path: Path) -> None:
    _dictionary(tmp_path, "eng-xx", {
        "00databaseinfo": "about this dictionary",
        "buy": "1. comprar, procurarse\n2. adquisición, compra",
        "purchase": "comprar",
        "Africa": "África",
        "shopping cart": "carro",
    })  # fmt: skip
    glossary._reversed.cache_clear()
    # The imperative and a plural meet the infinitive through the Snowball stem.
    assert glosses("Compra", "eng-xx", "spanish", tmp_path) == {"buy", "purchase"}
    assert glosses("compramos", "eng-xx", "spanish", tmp_path) == {"buy", "purchase"}
    # Names and phrases gloss no word; a word no entry translates has no gloss.
    assert glosses("áfrica", "eng-xx", "spanish", tmp_path) == frozenset()
    assert glosses("carro", "eng-xx", "spanish", tmp_path) == frozenset()
    # No dictionary installed, or none named: no glosses, no error.
    assert glosses("compra", "eng-yy", "spanish", tmp_path) == frozenset()
    assert glosses("compra", "", "", tmp_path) == frozenset()


def test_a_spanish_task_carries_the_english_words_debians_dictionary_gives() -> None:
    # Debian's dict-freedict-eng-spa (``make test`` installs it).
    installed = glossary.DICTIONARIES / "freedict-eng-spa.index"
    assert installed.is_file(), "apt-get install dict-freedict-eng-spa"
    task = parse("Compra el reloj Nova en ShopMall")
    assert {"buy", "watch"} <= set(task.glosses) <= set(task.content)
    assert task.own_content == ("compra", "reloj", "nova", "shopmall")
    assert "like" in parse("Dale me gusta a la canción Blue Roads").glosses
    # A task in the recordings' own language is read as it is.
    english = parse("Buy the Nova watch on ShopMall")
    assert english.glosses == () and english.content == english.own_content
