"""Messages (two versions) and Chirp, a small social network (feed, compose, posts, profile)."""

from __future__ import annotations

from guigraph.envs.simphone.widgets import (
    Handler,
    Screen,
    W,
    app,
    button,
    go,
    item,
    screen,
    text_input,
)
from guigraph.envs.simphone.world import Entry, World

app("messages", "Messages", "messages.list", (25, 118, 210))
app("social", "Chirp", "social.feed", (29, 161, 242))


# Messages ---------------------------------------------------------------------------------
def _open_chat(contact: str) -> Handler:
    def handler(world: World) -> None:
        world.data.chats.setdefault(contact, [])
        if world.entry is not None and world.entry.screen == "messages.new":
            world.replace("messages.chat", contact=contact)
        else:
            world.push("messages.chat", contact=contact)

    return handler


@screen("messages.list")
def conversations(world: World, entry: Entry) -> Screen:
    body = [
        W("item", c, key=f"chat_{c}", sub=(lines[-1] if lines else ""), tap=_open_chat(c), nav=True)
        for c, lines in world.data.chats.items()
    ]
    if world.version("messages") == 2:
        start = W("button", "Start chat", key="new_chat", tap=go("messages.new"), nav=True)
        return Screen("Chats", body=body, actions=[start], up=False)
    fab = W("button", "+", key="new_chat", tap=go("messages.new"), nav=True)
    return Screen("Messages", body=body, fab=fab, up=False)


@screen("messages.new")
def new_message(world: World, entry: Entry) -> Screen:
    query = world.field("to_query").strip().lower()
    contacts = [c for c in world.catalog.contacts if query in c.lower()]
    body = [
        item(c, sub=world.catalog.phone_numbers[c], key=f"contact_{c}", tap=_open_chat(c))
        for c in contacts
    ]
    header = [text_input("to_query", "To: name or number", world)]
    return Screen("New message", header=header, body=body or [W("text", "No contacts")])


def _send(contact: str) -> Handler:
    def handler(world: World) -> None:
        text = world.field("compose").strip()
        if text:
            world.data.chats.setdefault(contact, []).append(f"Me: {text}")
            world.set_field("compose", "")

    return handler


@screen("messages.chat")
def chat(world: World, entry: Entry) -> Screen:
    contact = str(entry.params["contact"])
    lines = world.data.chats.get(contact, [])
    body: list[W] = [W("para", line, key="bubble") for line in lines[-8:]]
    label = "Send" if world.version("messages") == 1 else "Send SMS"
    footer = [text_input("compose", "Text message", world, submit=_send(contact))]
    return Screen(
        contact,
        header=footer,
        body=body or [W("text", "Say hi!")],
        actions=[W("button", label, key="send", tap=_send(contact))],
    )


# Chirp ------------------------------------------------------------------------------------
FEED = (
    ("@sky_watch", "Clear skies tonight, perfect for stars"),
    ("@chef_lu", "New pasta recipe is up!"),
    ("@runclub", "Sunday 10K, who is in?"),
    ("@bookworm", "Finished a great novel today"),
    ("@citycycle", "Bike lanes open on 5th street"),
)


@screen("social.feed")
def feed(world: World, entry: Entry) -> Screen:
    mine = [("@me", post) for post in reversed(world.data.posts)]
    posts = mine + list(FEED)
    body = [
        W("item", text, key=f"post_{i}", sub=author, tap=go("social.post", index=i), nav=True)
        for i, (author, text) in enumerate(posts)
    ]
    profile = W("button", "Profile", key="open_profile", tap=go("social.profile"), nav=True)
    fab = W("button", "+", key="compose_post", tap=go("social.compose"), nav=True)
    return Screen("Chirp", body=body, actions=[profile], fab=fab, up=False)


def _post(world: World) -> None:
    text = world.field("post_text").strip()
    if text:
        world.data.posts.append(text)
        world.pop()


@screen("social.compose")
def compose(world: World, entry: Entry) -> Screen:
    body = [
        text_input("post_text", "What's happening?", world),
        W("text", f"{280 - len(world.field('post_text'))} characters left"),
    ]
    return Screen("New post", body=body, actions=[W("button", "Post", key="post", tap=_post)])


@screen("social.post")
def post_detail(world: World, entry: Entry) -> Screen:
    posts = [("@me", p) for p in reversed(world.data.posts)] + list(FEED)
    index = int(entry.params["index"])
    author, text = posts[index] if index < len(posts) else ("", "Post removed")
    likes = int(entry.params.get("likes", 3 + index))

    def like(w: World) -> None:
        entry.params["likes"] = likes + 1

    body = [
        W("label", author),
        W("para", text, key="post_text"),
        W("text", f"{likes} likes", key="likes"),
        button("Like", "like", like),
    ]
    return Screen("Post", body=body)


@screen("social.profile")
def profile(world: World, entry: Entry) -> Screen:
    body = [
        W("big", "@me"),
        W("text", f"{len(world.data.posts)} posts, 42 followers"),
        *[item(p, sub="Your post") for p in reversed(world.data.posts)],
    ]
    return Screen("Profile", body=body)
