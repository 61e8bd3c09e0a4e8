"""Which page of a site an observation is on: the path and the query's names, not its values."""

from __future__ import annotations

from guigraph.envs.web.env import page_of


def test_the_values_in_a_url_do_not_make_another_page() -> None:
    garden = page_of("http://127.0.0.1:8080/doku.php?id=garden&do=edit")
    chess = page_of("http://127.0.0.1:9090/doku.php?do=edit&id=chess#top")
    assert garden == chess == "/doku.php?do&id"


def test_other_paths_or_other_parameters_are_other_pages() -> None:
    view = page_of("http://wiki.example/doku.php?id=garden")
    search = page_of("http://wiki.example/doku.php?id=start&do=search&q=garden")
    assert view == "/doku.php?id" and search == "/doku.php?do&id&q"
    assert page_of("http://shop.example/cart") != page_of("http://shop.example/checkout")
    assert page_of("file:///tasks/login-user.html") == "/tasks/login-user.html"
