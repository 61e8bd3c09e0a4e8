"""Resource ids of the versioned apps: version 2 renamed them, as a redesign does.

A widget's ``key`` is the app's own name for it (screens, the expert and the checkers use
it); the resource id an observation reports is ``<app>:id/<name>``. Version 1 reports the key
itself. Version 2 of the five versioned apps reports another name: a new naming scheme
(``btn_``, ``nav_``, ``switch_`` …) and new words ("bag" for "cart", "track" for "song"), so a
script that found an element by its version-1 id no longer finds it. Item families rename
their prefix (``product_3`` -> ``card_3``). The toolkit's own names (the title, the up
arrow, the keyboard, the list, a dialog's texts and its "Not now"/"Cancel") stay.
"""

from __future__ import annotations

#: app -> {version-1 name: version-2 name}; a name ending in "_" renames a family's prefix.
RENAMED_IN_V2: dict[str, dict[str, str]] = {
    "shop": {
        "tab_home": "nav_home",
        "open_cart": "nav_bag",
        "open_orders": "nav_orders",
        "open_wishlist": "nav_saved",
        "search": "search_box",
        "product_image": "hero_image",
        "product_name": "name_label",
        "product_": "card_",
        "price": "price_label",
        "add_to_cart": "btn_add_bag",
        "add_to_wishlist": "btn_save_later",
        "in_cart": "bag_count",
        "cart_item_": "bag_line_",
        "total": "sum_label",
        "checkout": "btn_checkout",
        "place_order": "btn_place",
        "continue": "btn_continue",
    },
    "notes": {
        "note_title": "title_field",
        "note_body": "body_field",
        "note_query": "query_field",
        "note_": "row_",
        "open_search": "action_search",
        "new_note": "action_compose",
        "save": "action_done",
        "confirm": "btn_delete",
    },
    "messages": {
        "chat_": "thread_",
        "new_chat": "start_chat",
        "to_query": "recipient",
        "contact_": "person_",
        "compose": "message_input",
        "send": "send_sms",
        "bubble": "msg",
    },
    "settings": {
        "open_wifi": "row_connections",
        "open_bluetooth": "row_bt",
        "open_display": "row_display",
        "open_sound": "row_sounds",
        "open_battery": "row_battery",
        "open_about": "row_info",
        "airplane": "switch_airplane",
        "wifi_toggle": "switch_wifi",
        "data_toggle": "switch_data",
        "bluetooth_toggle": "switch_bt",
        "dark_toggle": "switch_dark",
        "brightness_value": "brightness_text",
        "brightness_": "bright_level_",
        "volume_value": "volume_text",
        "volume_": "vol_level_",
        "dnd_toggle": "switch_dnd",
        "saver_toggle": "switch_saver",
        "location_toggle": "switch_location",
    },
    "music": {
        "tab_library": "nav_library",
        "open_search": "nav_search",
        "open_playlists": "nav_playlists",
        "song_query": "search_input",
        "song_title": "track_name",
        "song_": "track_",
        "cover": "artwork",
        "artist": "track_artist",
        "play_pause": "btn_play",
        "like": "btn_like",
        "open_lyrics": "btn_lyrics",
        "add_to_playlist": "btn_add_playlist",
        "lyric_": "line_",
        "playlist_": "list_",
    },
}


def id_name(app: str, key: str, version: int) -> str:
    """The name in the resource id of ``app``'s widget ``key`` in app version ``version``."""
    if version == 1 or not key:
        return key
    renamed = RENAMED_IN_V2.get(app)
    if renamed is None:
        return key
    if key in renamed:
        return renamed[key]
    for prefix, new in renamed.items():
        if prefix.endswith("_") and key.startswith(prefix):
            return new + key[len(prefix) :]
    return key
