"""Browser: a search page, results that load, articles (with a cookie banner now and then),
bookmarks and history."""

from __future__ import annotations

from guigraph.envs.simphone.widgets import (
    Handler,
    Popup,
    Screen,
    W,
    app,
    button,
    go,
    nav_item,
    popup,
    screen,
    text_input,
)
from guigraph.envs.simphone.world import Entry, World

app("browser", "Browser", "browser.home", (26, 115, 232))


def _search(world: World) -> None:
    query = world.field("url").strip()
    if query:
        world.push("browser.results", loading=True, query=query)


def _actions() -> list[W]:
    return [W("button", "Bookmarks", key="open_bookmarks", tap=go("browser.bookmarks"), nav=True)]


@screen("browser.home")
def browser_home(world: World, entry: Entry) -> Screen:
    header = [text_input("url", "Search or type URL", world, submit=_search)]
    body = [
        W("big", "Search"),
        W("label", "Shortcuts"),
        nav_item("History", "browser.history", key="open_history"),
        nav_item("Bookmarks", "browser.bookmarks", key="open_bookmarks_list"),
        W("label", "Trending"),
        *[W("text", f"{t.title()}") for t in ("solar power", "comets", "jazz")],
    ]
    return Screen("Browser", header=header, body=body, actions=_actions(), up=False)


def _open_article(aid: int) -> Handler:
    def handler(world: World) -> None:
        world.data.history.append(aid)
        world.push("browser.article", aid=aid)
        if world.popup_rng.random() < world.popup_rate:
            world.show_popup("browser.popup_cookies")

    return handler


@screen("browser.results")
def browser_results(world: World, entry: Entry) -> Screen:
    query = str(entry.params["query"])
    found = world.catalog.search_articles(query)
    body: list[W] = [W("label", f"Results for {query}")]
    body += [
        W("item", a.title, key=f"article_{a.aid}", sub=a.site, tap=_open_article(a.aid), nav=True)
        for a in found
    ]
    if not found:
        body.append(W("text", "No results. Try other words."))
    return Screen(query, body=body, actions=_actions())


def _bookmark(aid: int) -> Handler:
    def handler(world: World) -> None:
        if aid not in world.data.bookmarks:
            world.data.bookmarks.append(aid)

    return handler


@screen("browser.article")
def browser_article(world: World, entry: Entry) -> Screen:
    article = world.catalog.articles[int(entry.params["aid"])]
    saved = article.aid in world.data.bookmarks
    body: list[W] = [W("label", article.site), W("para", article.title, key="article_title")]
    body += [W("para", p) for p in article.paragraphs]
    star = W("button", "Saved" if saved else "Save", key="bookmark", tap=_bookmark(article.aid))
    return Screen(article.site, body=body, actions=[star, *_actions()])


@popup("browser.popup_cookies")
def cookies(world: World, entry: Entry) -> Popup:
    return Popup(
        "Cookies",
        "This site uses cookies to improve your experience.",
        buttons=[button("Accept", "dismiss", lambda w: w.close_popup())],
    )


def _article_item(world: World, aid: int, key: str) -> W:
    """A listed article (bookmarks, history): its title and site; a tap opens it."""
    article = world.catalog.articles[aid]
    return W("item", article.title, key=key, sub=article.site, tap=_open_article(aid), nav=True)


@screen("browser.bookmarks")
def browser_bookmarks(world: World, entry: Entry) -> Screen:
    body: list[W] = [_article_item(world, a, f"article_{a}") for a in world.data.bookmarks] or [
        W("text", "No bookmarks yet")
    ]
    return Screen("Bookmarks", body=body)


@screen("browser.history")
def browser_history(world: World, entry: Entry) -> Screen:
    body: list[W] = [
        _article_item(world, a, f"history_{n}") for n, a in enumerate(reversed(world.data.history))
    ] or [W("text", "No history")]
    return Screen("History", body=body)
