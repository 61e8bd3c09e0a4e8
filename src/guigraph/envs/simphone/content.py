"""Seeded content: what the apps show, varying with the seed.

Search results, prices, temperatures, lyrics and contacts all come from one ``random.Random``
seeded per world, so a value read in one app has to be carried into another and cannot be
guessed from the instruction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CITIES = ("Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Sydney", "Denver", "Hanoi", "Rome", "Quito")
CONDITIONS = ("Sunny", "Cloudy", "Rain", "Snow", "Windy", "Fog")
CONTACTS = ("Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Greta", "Hiro", "Ines", "Jonas")
PRODUCT_KINDS = ("headphones", "backpack", "kettle", "lamp", "sneakers", "watch", "camera bag")
BRANDS = ("Nova", "Orbit", "Pique", "Zephyr", "Lumen", "Atlas")
SONG_WORDS = ("Blue", "River", "Night", "Gold", "Echo", "Paper", "Summer", "Glass", "Fire")
SONG_NOUNS = ("Lights", "Roads", "Hearts", "Skies", "Dreams", "Waves", "Stars")
ARTISTS = ("The Hollows", "Mira Vale", "Kite Club", "Oscar Lune", "Sable")
LYRIC_WORDS = (
    "we",
    "run",
    "under",
    "the",
    "open",
    "sky",
    "tonight",
    "hold",
    "on",
    "slow",
    "city",
    "lights",
    "fade",
    "away",
    "again",
    "home",
    "forever",
    "call",
    "my",
    "name",
)
TOPICS = (
    "solar power",
    "honey bees",
    "deep sea",
    "chess",
    "coffee",
    "volcanoes",
    "jazz",
    "marathons",
    "origami",
    "comets",
)
VIDEO_TOPICS = (
    "pasta recipe",
    "guitar lesson",
    "cat compilation",
    "yoga routine",
    "city tour",
    "bike repair",
    "card trick",
)


@dataclass(frozen=True, slots=True)
class Product:
    pid: int
    name: str
    price: str
    rating: str


@dataclass(frozen=True, slots=True)
class Song:
    sid: int
    title: str
    artist: str
    lyrics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Article:
    aid: int
    topic: str
    title: str
    site: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Video:
    vid: int
    title: str
    channel: str
    views: str


@dataclass(frozen=True, slots=True)
class Weather:
    city: str
    temperature: int
    condition: str
    forecast: tuple[tuple[str, int, str], ...]


@dataclass(frozen=True, slots=True)
class Catalog:
    products: tuple[Product, ...]
    songs: tuple[Song, ...]
    articles: tuple[Article, ...]
    videos: tuple[Video, ...]
    weather: dict[str, Weather]
    contacts: tuple[str, ...]
    phone_numbers: dict[str, str]

    def product_named(self, name: str) -> Product:
        return next(p for p in self.products if p.name == name)

    def song_titled(self, title: str) -> Song:
        return next(s for s in self.songs if s.title == title)

    def search_products(self, query: str) -> list[Product]:
        q = query.strip().lower()
        return [p for p in self.products if q and q in p.name.lower()]

    def search_songs(self, query: str) -> list[Song]:
        q = query.strip().lower()
        return [s for s in self.songs if q and (q in s.title.lower() or q in s.artist.lower())]

    def search_articles(self, query: str) -> list[Article]:
        q = query.strip().lower()
        return [a for a in self.articles if q and (q in a.topic or q in a.title.lower())]

    def search_videos(self, query: str) -> list[Video]:
        q = query.strip().lower()
        return [v for v in self.videos if q and q in v.title.lower()]


def _lyrics(rng: random.Random) -> tuple[str, ...]:
    lines = []
    for _ in range(8):
        words = rng.sample(LYRIC_WORDS, rng.randint(4, 6))
        lines.append(" ".join(words).capitalize())
    return tuple(lines)


def make_catalog(rng: random.Random) -> Catalog:
    products: list[Product] = []
    for kind in PRODUCT_KINDS:
        for brand in rng.sample(BRANDS, 3):
            price = f"${rng.randint(9, 299)}.{rng.choice(('00', '49', '99'))}"
            rating = f"{rng.randint(30, 50) / 10:.1f}"
            products.append(Product(len(products), f"{brand} {kind}", price, rating))
    titles = set()
    songs: list[Song] = []
    while len(songs) < 14:
        title = f"{rng.choice(SONG_WORDS)} {rng.choice(SONG_NOUNS)}"
        if title in titles:
            continue
        titles.add(title)
        songs.append(Song(len(songs), title, rng.choice(ARTISTS), _lyrics(rng)))
    articles: list[Article] = []
    for topic in TOPICS:
        for n, site in enumerate(
            rng.sample(("wikiverse.org", "dailyfacts.net", "lab-notes.io"), 2)
        ):
            title = f"{topic.title()}, {rng.choice(('a guide', 'ten facts', 'what to know'))}"
            if n:
                title = f"The story of {topic}"
            paragraphs = tuple(
                f"{topic.capitalize()} {rng.choice(('has', 'shows', 'offers'))} "
                f"{rng.randint(3, 97)} {rng.choice(('surprises', 'records', 'uses', 'secrets'))}"
                f" that few people know about, from early days to now."
                for _ in range(6)
            )
            articles.append(Article(len(articles), topic, title, site, paragraphs))
    videos: list[Video] = []
    for topic in VIDEO_TOPICS:
        for n in range(2):
            title = f"{topic.title()} {('for beginners', 'in 5 minutes')[n]}"
            views = f"{rng.randint(2, 990)}K views"
            videos.append(Video(len(videos), title, rng.choice(ARTISTS), views))
    weather = {}
    for city in CITIES:
        days = tuple(
            (day, rng.randint(-5, 35), rng.choice(CONDITIONS))
            for day in ("Mon", "Tue", "Wed", "Thu", "Fri")
        )
        weather[city] = Weather(city, rng.randint(-5, 35), rng.choice(CONDITIONS), days)
    contacts = tuple(sorted(rng.sample(CONTACTS, 8)))
    numbers = {c: f"+1 555 {rng.randint(100, 999)} {rng.randint(1000, 9999)}" for c in contacts}
    return Catalog(
        tuple(products), tuple(songs), tuple(articles), tuple(videos), weather, contacts, numbers
    )
