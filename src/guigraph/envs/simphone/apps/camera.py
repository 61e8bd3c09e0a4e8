"""Camera: asks for permission on first use, takes photos into the Gallery's album."""

from __future__ import annotations

from guigraph.envs.simphone.widgets import (
    Handler,
    Popup,
    Screen,
    W,
    app,
    button,
    popup,
    row,
    screen,
)
from guigraph.envs.simphone.world import Entry, World

app("camera", "Camera", "camera.viewfinder", (55, 71, 79))


def _shutter(world: World) -> None:
    if not world.data.camera_allowed:
        world.show_popup("camera.popup_permission")
        return
    name = f"IMG_{2000 + world.seed % 7000 + len(world.data.photos)}"
    world.data.photos.append(name)
    world.push("camera.review", name=name)


@screen("camera.viewfinder")
def viewfinder(world: World, entry: Entry) -> Screen:
    mode = str(entry.params.get("mode", "Photo"))

    def set_mode(value: str) -> Handler:
        return lambda w: entry.params.__setitem__("mode", value)

    body = [
        W("image", f"{mode} mode", color=(40, 44, 52), key="viewfinder"),
        row(
            *[
                W("chip", m, key=f"mode_{m.lower()}", checked=m == mode, tap=set_mode(m))
                for m in ("Photo", "Video", "Portrait")
            ]
        ),
        button("Shutter", "shutter", _shutter),
    ]
    last = world.data.photos[-1] if world.data.photos else "none"
    body.append(W("text", f"Last photo: {last}", key="last_photo"))
    return Screen("Camera", body=body, up=False)


@popup("camera.popup_permission")
def permission(world: World, entry: Entry) -> Popup:
    def allow(w: World) -> None:
        w.data.camera_allowed = True
        w.close_popup()

    return Popup(
        "Allow Camera to take pictures and record video?",
        buttons=[
            button("Don't allow", "deny", lambda w: w.close_popup()),
            button("Allow", "allow", allow),
        ],
    )


@screen("camera.review")
def review(world: World, entry: Entry) -> Screen:
    name = str(entry.params["name"])
    body = [
        W("image", name, color=(90, 120, 200), key="photo_preview"),
        W("text", f"Saved {name}.jpg to Gallery", key="saved"),
        button("Take another", "again", lambda w: w.pop()),
    ]
    return Screen("Photo", body=body)
