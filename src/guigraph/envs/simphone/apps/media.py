"""Tunes (music: search, player, lyrics, playlists; two versions), ViewTube (video) and Gallery."""

from __future__ import annotations

from guigraph.envs.simphone.widgets import (
    Handler,
    Popup,
    Screen,
    W,
    app,
    button,
    go,
    item,
    nav_item,
    popup,
    row,
    screen,
    text_input,
)
from guigraph.envs.simphone.world import Entry, World

app("music", "Tunes", "music.library", (200, 40, 110))
app("video", "ViewTube", "video.home", (204, 0, 0))
app("gallery", "Gallery", "gallery.grid", (0, 137, 123))

SHADES = ((90, 120, 200), (200, 120, 90), (90, 170, 120), (170, 90, 170), (160, 150, 80))


# Music ------------------------------------------------------------------------------------
def _play(sid: int) -> Handler:
    def handler(world: World) -> None:
        world.data.now_playing = sid
        world.push("music.player", sid=sid)

    return handler


def _song_items(world: World, sids: list[int]) -> list[W]:
    songs = world.catalog.songs
    return [
        W("item", songs[s].title, key=f"song_{s}", sub=songs[s].artist, tap=_play(s)) for s in sids
    ]


def _music_nav(world: World, current: str) -> list[W]:
    """Version 2 has bottom tabs; version 1 puts the same entries in the app bar."""
    entries = (
        ("Library", "music.library", "tab_library"),
        ("Search", "music.search", "open_search"),
        ("Playlists", "music.playlists", "open_playlists"),
    )

    def switch(target: str) -> Handler:
        return lambda world: (
            world.replace(target) if len(world.stacks["music"]) == 1 else world.push(target)
        )

    kind = "tab" if world.version("music") == 2 else "button"
    return [
        W(kind, label, key=key, checked=target == current, tap=switch(target))
        for label, target, key in entries
        if kind == "tab" or target != current
    ]


def _music_screen(world: World, title: str, current: str, **kw: object) -> Screen:
    nav = _music_nav(world, current)
    if world.version("music") == 2:
        return Screen(title, bottom=nav, up=current not in ("music.library",), **kw)  # type: ignore[arg-type]
    return Screen(title, actions=nav[-2:], up=current != "music.library", **kw)  # type: ignore[arg-type]


@screen("music.library")
def library(world: World, entry: Entry) -> Screen:
    body = [W("label", "Recently added"), *_song_items(world, list(range(0, 14, 2)))]
    return _music_screen(world, "Tunes", "music.library", body=body)


@screen("music.search")
def music_search(world: World, entry: Entry) -> Screen:
    found = world.catalog.search_songs(world.field("song_query"))
    body = _song_items(world, [s.sid for s in found]) or [W("text", "Songs and artists")]
    return _music_screen(
        world,
        "Search",
        "music.search",
        body=body,
        header=[text_input("song_query", "What do you want to hear?", world)],
    )


@screen("music.player")
def player(world: World, entry: Entry) -> Screen:
    song = world.catalog.songs[int(entry.params["sid"])]
    playing = world.data.now_playing == song.sid
    liked = song.sid in world.data.liked_songs

    def like(w: World) -> None:
        if liked:
            w.data.liked_songs.remove(song.sid)
        else:
            w.data.liked_songs.append(song.sid)

    def pause(w: World) -> None:
        w.data.now_playing = None if playing else song.sid

    body = [
        W("image", song.title, color=SHADES[song.sid % 5], key="cover"),
        W("big", song.title[:16], key="song_title"),
        W("text", song.artist, key="artist"),
        row(
            button("Pause" if playing else "Play", "play_pause", pause),
            button("Liked" if liked else "Like", "like", like),
        ),
        row(
            button("Lyrics", "open_lyrics", go("music.lyrics", sid=song.sid)),
            button(
                "Add to playlist",
                "add_to_playlist",
                lambda w: w.show_popup("music.popup_add_to_playlist"),
            ),
        ),
    ]
    body[3].children[0].nav = False
    body[4].children[0].nav = True
    return Screen("Now playing", body=body)


@screen("music.lyrics")
def lyrics(world: World, entry: Entry) -> Screen:
    song = world.catalog.songs[int(entry.params["sid"])]
    if song.sid not in world.data.lyrics_viewed:
        world.data.lyrics_viewed.append(song.sid)
    body = [W("label", f"{song.title} - {song.artist}")]
    body += [W("text", line, key=f"lyric_{n}") for n, line in enumerate(song.lyrics)]
    return Screen("Lyrics", body=body)


@popup("music.popup_add_to_playlist")
def add_to_playlist(world: World, entry: Entry) -> Popup:
    sid = int(entry.params["sid"])

    def add(name: str) -> Handler:
        def handler(w: World) -> None:
            if sid not in w.data.playlists[name]:
                w.data.playlists[name].append(sid)
            w.close_popup()

        return handler

    items = [item(name, key=f"playlist_{name}", tap=add(name)) for name in world.data.playlists]
    return Popup(
        "Add to playlist",
        items=items,
        buttons=[button("Cancel", "dismiss", lambda w: w.close_popup())],
    )


@screen("music.playlists")
def playlists(world: World, entry: Entry) -> Screen:
    body = [
        nav_item(
            name, "music.playlist", sub=f"{len(sids)} songs", key=f"playlist_{name}", name=name
        )
        for name, sids in world.data.playlists.items()
    ]
    return _music_screen(world, "Playlists", "music.playlists", body=body)


@screen("music.playlist")
def playlist(world: World, entry: Entry) -> Screen:
    name = str(entry.params["name"])
    body = _song_items(world, world.data.playlists[name]) or [W("text", "No songs yet")]
    return Screen(name, body=body)


# Video ------------------------------------------------------------------------------------
def _search_videos(world: World) -> None:
    query = world.field("video_query").strip()
    if query:
        world.push("video.results", loading=True, query=query)


def _watch(vid: int) -> Handler:
    def handler(world: World) -> None:
        world.data.watched.append(vid)
        world.push("video.player", vid=vid)

    return handler


def _video_items(world: World, vids: list[int]) -> list[W]:
    videos = world.catalog.videos
    return [
        W(
            "item",
            videos[v].title,
            key=f"video_{v}",
            sub=f"{videos[v].channel} · {videos[v].views}",
            tap=_watch(v),
            nav=True,
        )
        for v in vids
    ]


@screen("video.home")
def video_home(world: World, entry: Entry) -> Screen:
    picks = list(range(world.seed % 3, len(world.catalog.videos), 3))
    body = [W("label", "Recommended"), *_video_items(world, picks)]
    return Screen(
        "ViewTube",
        header=[text_input("video_query", "Search videos", world, submit=_search_videos)],
        body=body,
        up=False,
    )


@screen("video.results")
def video_results(world: World, entry: Entry) -> Screen:
    found = world.catalog.search_videos(str(entry.params["query"]))
    body = _video_items(world, [v.vid for v in found]) or [W("text", "No videos found")]
    return Screen(str(entry.params["query"]), body=body)


@screen("video.player")
def video_player(world: World, entry: Entry) -> Screen:
    video = world.catalog.videos[int(entry.params["vid"])]
    liked = video.vid in world.data.liked_videos

    def like(w: World) -> None:
        if not liked:
            w.data.liked_videos.append(video.vid)

    body = [
        W("image", "> playing", color=(30, 30, 30), key="video_surface"),
        W("para", video.title, key="video_title"),
        W("text", video.views),
        row(
            button("Liked" if liked else "Like", "like", like),
            button("Share", "share", lambda w: w.show_popup("video.popup_share")),
        ),
    ]
    return Screen(video.channel, body=body)


@popup("video.popup_share")
def share_video(world: World, entry: Entry) -> Popup:
    video = world.catalog.videos[int(entry.params["vid"])]
    return share_sheet(world, f"Watch: {video.title}")


def share_sheet(world: World, message: str) -> Popup:
    """Android's share sheet: direct-share contacts, each a tap that sends ``message``."""
    return Popup(
        "Share to",
        items=share_targets(world, message),
        buttons=[button("Cancel", "dismiss", lambda w: w.close_popup())],
    )


def share_targets(world: World, message: str) -> list[W]:
    """Direct-share contacts (Android's share sheet): the message lands in their chat."""

    def send(contact: str) -> Handler:
        def handler(w: World) -> None:
            w.data.chats.setdefault(contact, []).append(f"Me: {message}")
            w.close_popup()
            w.toast(f"Sent to {contact}")

        return handler

    return [
        item(c, sub="Messages", key=f"share_{c}", tap=send(c)) for c in world.catalog.contacts[:5]
    ]


# Gallery ----------------------------------------------------------------------------------
@screen("gallery.grid")
def gallery_grid(world: World, entry: Entry) -> Screen:
    photos = list(reversed(world.data.photos))
    thumbs = [
        W(
            "image",
            name,
            key=f"photo_{len(photos) - 1 - i}",
            color=SHADES[i % 5],
            tap=go("gallery.photo", index=len(photos) - 1 - i),
            nav=True,
        )
        for i, name in enumerate(photos)
    ]
    rows = [row(*thumbs[i : i + 3]) for i in range(0, len(thumbs), 3)]
    for last in rows[-1:]:
        # Keep the grid's columns even: pad the last row with empty cells.
        last.children += [W("text", "") for _ in range(3 - len(last.children))]
    return Screen("Gallery", body=[W("label", "Camera"), *rows], up=False)


@screen("gallery.photo")
def gallery_photo(world: World, entry: Entry) -> Screen:
    index = int(entry.params["index"])
    name = world.data.photos[index]
    body = [
        W("image", name, color=SHADES[index % 5], key="photo_view"),
        W("text", f"{name}.jpg", key="photo_name"),
        button("Share", "share", lambda w: w.show_popup("gallery.popup_share")),
    ]
    return Screen(name, body=body)


@popup("gallery.popup_share")
def share_photo(world: World, entry: Entry) -> Popup:
    name = world.data.photos[int(entry.params["index"])]
    return share_sheet(world, f"[Photo {name}]")
