"""ShopMall: search -> results -> product -> cart -> checkout, plus orders and a wishlist.

Version 2 renames the cart to a bag and moves navigation from the app bar to bottom tabs.
"""

from __future__ import annotations

from guigraph.envs.simphone.widgets import (
    Handler,
    Screen,
    W,
    app,
    button,
    go,
    item,
    nav_item,
    screen,
    text_input,
)
from guigraph.envs.simphone.world import Entry, World

app("shop", "ShopMall", "shop.home", (232, 93, 4))


def _cart_word(world: World) -> str:
    return "Bag" if world.version("shop") == 2 else "Cart"


def _nav(world: World, current: str) -> tuple[list[W], list[W]]:
    """App-bar actions in version 1, bottom tabs in version 2."""
    cart = _cart_word(world)
    if world.version("shop") == 2:
        tabs = [
            W(
                "tab",
                "Home",
                key="tab_home",
                checked=current == "home",
                tap=lambda w: w.pop_to("shop.home"),
            ),
        ]
        tabs += [
            W("tab", label, key=f"open_{name}", checked=current == name, tap=go(target), nav=True)
            for label, name, target in (
                (cart, "cart", "shop.cart"),
                ("Orders", "orders", "shop.orders"),
                ("Saved", "wishlist", "shop.wishlist"),
            )
        ]
        return [], tabs
    actions = [
        W("button", cart, key="open_cart", tap=go("shop.cart"), nav=True),
        W("button", "Orders", key="open_orders", tap=go("shop.orders"), nav=True),
    ]
    return actions, []


def _search(world: World) -> None:
    query = world.field("search").strip()
    if query:
        world.push("shop.results", loading=True, query=query)


@screen("shop.home")
def shop_home(world: World, entry: Entry) -> Screen:
    actions, tabs = _nav(world, "home")
    deals = world.catalog.products[world.seed % 5 :: 5][:6]
    body: list[W] = [W("label", "Deals for you")]
    body += [
        nav_item(p.name, "shop.product", sub=p.price, key=f"product_{p.pid}", pid=p.pid)
        for p in deals
    ]
    body.append(nav_item("Saved items", "shop.wishlist", key="open_wishlist"))
    header = [text_input("search", "Search products", world, submit=_search)]
    return Screen("ShopMall", header=header, body=body, actions=actions, bottom=tabs, up=False)


@screen("shop.results")
def shop_results(world: World, entry: Entry) -> Screen:
    query = str(entry.params["query"])
    found = world.catalog.search_products(query)
    body: list[W] = [W("label", f"{len(found)} results for '{query}'")]
    body += [
        nav_item(
            p.name,
            "shop.product",
            sub=f"{p.price}  ·  {p.rating} stars",
            key=f"product_{p.pid}",
            pid=p.pid,
        )
        for p in found
    ]
    if not found:
        body.append(W("text", "No products match your search."))
    actions, tabs = _nav(world, "results")
    return Screen("Results", body=body, actions=actions, bottom=tabs)


def _add(pid: int, where: str) -> Handler:
    def handler(world: World) -> None:
        target = world.data.cart if where == "cart" else world.data.wishlist
        target.append(pid)
        world.toast(f"Added to {where}")

    return handler


@screen("shop.product")
def shop_product(world: World, entry: Entry) -> Screen:
    product = world.catalog.products[int(entry.params["pid"])]
    cart = _cart_word(world)
    in_cart = world.data.cart.count(product.pid)
    body = [
        W("image", product.name, key="product_image", color=(240, 160, 90)),
        W("big", product.price, key="price", sub=f"{product.rating} stars"),
        W("text", product.name, key="product_name"),
        button(f"Add to {cart.lower()}", "add_to_cart", _add(product.pid, "cart")),
        button("Save for later", "add_to_wishlist", _add(product.pid, "wishlist")),
        W("text", f"In your {cart.lower()}: {in_cart}", key="in_cart"),
        W(
            "para",
            f"The {product.name} is one of our best sellers. Free delivery in 2 days, "
            "free returns within 30 days. Ships from our own warehouse.",
        ),
    ]
    actions, tabs = _nav(world, "product")
    return Screen("Product", body=body, actions=actions, bottom=tabs)


def _remove(index: int) -> Handler:
    def handler(world: World) -> None:
        if index < len(world.data.cart):
            world.data.cart.pop(index)

    return handler


@screen("shop.cart")
def shop_cart(world: World, entry: Entry) -> Screen:
    products = world.catalog.products
    body: list[W] = []
    for i, pid in enumerate(world.data.cart):
        body.append(
            item(
                products[pid].name, sub=products[pid].price, key=f"cart_item_{pid}", long=_remove(i)
            )
        )
    total = sum(float(products[pid].price[1:]) for pid in world.data.cart)
    if not body:
        body.append(W("text", f"Your {_cart_word(world).lower()} is empty"))
    body.append(W("big", f"${total:.2f}", key="total", sub="Total"))
    checkout = go("shop.checkout") if world.data.cart else None
    body.append(W("button", "Checkout", key="checkout", tap=checkout, nav=True))
    actions, tabs = _nav(world, "cart")
    return Screen(_cart_word(world), body=body, actions=actions[1:], bottom=tabs)


def _place_order(world: World) -> None:
    world.data.orders.append(list(world.data.cart))
    world.data.cart.clear()
    world.replace("shop.order_done")


@screen("shop.checkout")
def shop_checkout(world: World, entry: Entry) -> Screen:
    products = world.catalog.products
    total = sum(float(products[pid].price[1:]) for pid in world.data.cart)
    body = [
        W("label", "Deliver to"),
        item("Home", sub="12 Garden Street"),
        W("label", "Payment"),
        item("Visa ending 4242", sub="Expires 08/29"),
        W("big", f"${total:.2f}", key="total", sub="Total"),
        button("Place order", "place_order", _place_order),
    ]
    return Screen("Checkout", body=body)


@screen("shop.order_done")
def shop_order_done(world: World, entry: Entry) -> Screen:
    number = 100000 + world.seed % 900000 + len(world.data.orders)
    body = [
        W("big", "Thank you!"),
        W("text", f"Order #{number} is placed."),
        W("text", "It arrives in 2 days."),
        button("Continue shopping", "continue", lambda w: w.pop_to("shop.home")),
    ]
    return Screen("Order placed", body=body)


@screen("shop.orders")
def shop_orders(world: World, entry: Entry) -> Screen:
    products = world.catalog.products
    body: list[W] = [
        item(", ".join(products[p].name for p in order), sub=f"Order {n + 1}  ·  In transit")
        for n, order in enumerate(world.data.orders)
    ] or [W("text", "No orders yet")]
    actions, tabs = _nav(world, "orders")
    return Screen("Orders", body=body, actions=actions[:1], bottom=tabs)


@screen("shop.wishlist")
def shop_wishlist(world: World, entry: Entry) -> Screen:
    products = world.catalog.products
    body: list[W] = [
        nav_item(products[p].name, "shop.product", sub=products[p].price, key=f"product_{p}", pid=p)
        for p in world.data.wishlist
    ] or [W("text", "Nothing saved yet")]
    actions, tabs = _nav(world, "wishlist")
    return Screen("Saved items", body=body, actions=actions, bottom=tabs)
