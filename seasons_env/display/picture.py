"""A picture of the board (the ``rgb_array`` render mode, replays and their animations), drawn with Pillow.

``render_rgb(game, seat=None)`` returns an ``(H, W, 3)`` uint8 array; ``render_image`` the Pillow image. The
picture shows the season wheel (year and month marker), the rolled dice with their faces and who took them,
and for each player the crystals, energy reserve, summoning gauge, bonuses used, current score, cards in play
(tapped or not, with the tokens stored on them), hand and library sizes, the acting player and the pending
decision.

Observer-aware: with ``seat=p`` only what seat ``p`` may see is drawn (its own hand, library and draft pack by
name, the cards it saw and passed on in the draft, the top card its Crystal Orb showed; other seats' hidden cards
only as counts; the legal options and the decision's cards only when ``p`` decides). The default
``seat=None`` is the god view: every hand, library and pack, labelled "god view" on the picture.

The pixels depend only on the position and the seat (Pillow's bundled font, no system fonts, no clock), and
the size only on the number of players (``picture_size``), so the frames of a game make one video.
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..engine import Game, describe_action
from ..engine.data import CARD_NAMES, CARD_OF, CARDS, DICE, ENERGIES, GAUGE_MAX, MAX_BONUSES, SEASONS
from .rendering import (
    check_viewer,
    decision_context,
    decision_words,
    deferred_text,
    draft_seen_cards,
    game_dice_text,
    orb_card,
    render_text,
    turn_text,
)

WIDTH = 1200
HEADER_HEIGHT = 336  # the wheel, the dice and the decision (224), then the band of notes (112)
NOTES_TOP = 226
NOTE_LINES = 7
NOTE_LINE_HEIGHT = 15
PANEL_HEIGHT = 176  # both multiples of 16, so that video encoders need not resize the frames

BACKGROUND = (246, 243, 236)
INK = (33, 33, 38)
MUTED = (110, 108, 104)
PANEL = (255, 255, 255)
SEASON_COLORS = {
    "winter": (150, 196, 232),
    "spring": (160, 210, 130),
    "summer": (244, 202, 96),
    "autumn": (226, 146, 100),
}
ENERGY_COLORS = {
    "water": (52, 118, 214),
    "earth": (134, 96, 58),
    "fire": (214, 60, 44),
    "air": (236, 212, 70),
}
ENERGY_TEXT = {"water": (255, 255, 255), "earth": (255, 255, 255), "fire": (255, 255, 255), "air": INK}
SEAT_COLORS = ((196, 64, 64), (58, 110, 196), (60, 150, 80), (150, 90, 180))
ITEM_FILL = (232, 226, 246)
FAMILIAR_FILL = (226, 242, 226)
TAPPED_FILL = (208, 206, 202)
CRYSTAL = (120, 70, 170)


def picture_size(num_players: int) -> tuple[int, int]:
    """``(width, height)`` of the picture of a game with ``num_players`` players."""
    return WIDTH, HEADER_HEIGHT + PANEL_HEIGHT * num_players


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    # Pillow's bundled font: the same glyphs on every machine, nothing read from the system.
    return ImageFont.load_default(size=size)


@functools.lru_cache(maxsize=8192)
def _text_mask(text: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """``text`` drawn once as an 8-bit mask, with its offset from the anchor point: most labels recur from one
    frame to the next, and rasterising text is most of a picture's cost."""
    font = _font(size)
    left, top, right, bottom = font.getbbox(text, anchor=anchor)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
    return mask, left, top


class Canvas:
    """Pillow's ``ImageDraw`` with text pasted from cached masks (the shapes are drawn as usual)."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self._draw = ImageDraw.Draw(image)

    def __getattr__(self, name: str):
        return getattr(self._draw, name)

    def text(self, xy: tuple[int, int], text: str, font: ImageFont.FreeTypeFont, fill, anchor: str = "la") -> None:
        if not text:
            return
        mask, left, top = _text_mask(text, int(font.size), anchor)
        self.image.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)

    @staticmethod
    @functools.lru_cache(maxsize=8192)
    def _length(text: str, size: int) -> float:
        return _font(size).getlength(text)

    def textlength(self, text: str, font: ImageFont.FreeTypeFont) -> float:
        return self._length(text, int(font.size))


def _check_seat(game: Game, seat: int | None) -> None:
    check_viewer(game, seat, "seat")


def _fit(draw: Canvas, text: str, font: ImageFont.FreeTypeFont, width: int) -> str:
    """``text`` cut (with an ellipsis) to fit ``width`` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "...", font=font) > width:
        text = text[:-1]
    return text.rstrip(" ,;") + "..."


def _token(draw: Canvas, x: int, y: int, energy: str, count: int, radius: int = 9) -> None:
    """An energy token (a disc in the energy's colour) with a count inside."""
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=ENERGY_COLORS[energy], outline=INK)
    draw.text((x, y), str(count), font=_font(radius + 3), fill=ENERGY_TEXT[energy], anchor="mm")


def _tokens_row(draw: Canvas, x: int, y: int, tokens, radius: int = 9) -> int:
    """The non-zero tokens of a 4-tuple side by side; returns the x after the last one."""
    for energy, count in zip(ENERGIES, tokens, strict=True):
        if count:
            _token(draw, x + radius, y, energy, count, radius)
            x += 2 * radius + 4
    return x


def board_view(game: Game, seat: int | None = None) -> dict:
    """What the picture shows of ``game`` to ``seat`` (``None``: the god view), as JSON-safe data.

    The one place that decides what an observer may see: the picture and the replay page draw only this.
    Another seat's hand, library and draft pack appear as counts; the legal options only to whoever decides
    (or in the god view); the draw and discard piles only as sizes.
    """
    _check_seat(game, seat)
    over = game.is_over
    decider = None if over else game.current_player
    options = None
    if not over and (seat is None or seat == decider):
        options = [describe_action(a) for a in game.legal_action_list()]
    scores = [int(s) for s in game.scores()]
    dice = []
    for die, face_index, owner in game.rolled:
        face = DICE[game.dice_season][die][face_index]
        dice.append(
            {
                "die": int(die),
                "pips": face.pips,
                "energy": list(face.energy),
                "crystals": face.crystals,
                "gauge": face.gauge,
                "transmute": face.transmute,
                "draw": face.draw,
                "owner": int(owner),
            }
        )
    players = []
    for p in range(game.num_players):
        visible = seat is None or seat == p
        year2, year3 = game.library[p]
        in_play = []
        for instance in game.in_play[p]:
            stored = game.stored.get(instance)
            in_play.append(
                {
                    "name": CARD_NAMES[CARD_OF[instance]],
                    "item": CARDS[CARD_OF[instance]].is_item,
                    "tapped": bool(game.tapped >> instance & 1),
                    "stored": [int(n) for n in stored] if stored is not None and any(stored) else None,
                }
            )
        orb = orb_card(game, p) if visible else None
        players.append(
            {
                "crystals": int(game.crystals[p]),
                "reserve": [int(n) for n in game.reserve[p]],
                "reserve_limit": int(game.reserve_limit(p)),
                "gauge": int(game.gauge[p]),
                "bonuses_used": int(game.bonuses_used[p]),
                "score": scores[p],
                "in_play": in_play,
                "hand_size": len(game.hand[p]),
                "library_sizes": [len(year2), len(year3)],
                "pack_size": len(game.draft_pack[p]),
                "hand": [CARD_NAMES[c] for c in game.hand[p]] if visible else None,
                "library": [[CARD_NAMES[c] for c in year2], [CARD_NAMES[c] for c in year3]] if visible else None,
                "pack": [CARD_NAMES[c] for c in game.draft_pack[p]] if visible else None,
                "turn": turn_text(game, p),
                "may_transmute": bool(game.can_transmute(p)),
                "transmute_bonus_used": bool(game.used_transmute_bonus(p)),
                "draft_seen": [CARD_NAMES[c] for c in draft_seen_cards(game, p)] if visible else None,
                "orb_seen": CARD_NAMES[orb] if orb is not None else None,
            }
        )
    context = decision_context(game, seat) if not over else []
    return {
        "num_players": game.num_players,
        "level": game.level,
        "seat": seat,
        "year": min(game.year, 3),
        "past_end": game.year > 3,
        "season": SEASONS[game.season],
        "position": int(game.position),
        "first_player": int(game.first_player),
        "dice_season": SEASONS[game.dice_season],
        "dice": dice,
        "draw_pile": len(game.draw_pile),
        "discard_pile": len(game.discard_pile),
        "over": over,
        "winners": [int(p) for p in game.winners()],
        "decider": decider,
        "decision": game.pending_decision,
        "decision_words": None if over else decision_words(game.pending_decision),
        "options": options,
        "context": context or None,
        "turn_player": int(game.turn_player) if game.turn_player >= 0 else None,
        "game_dice": {SEASONS[k]: [int(d) for d in sorted(dice)] for k, dice in enumerate(game.game_dice)},
        "deferred_tokens": [[int(p), int(n)] for p, n in game.deferred_tokens],
        "players": players,
        "notes": _notes(game, seat, context, players),
    }


def _notes(game: Game, seat: int | None, context: list[str], players: list[dict]) -> list[str]:
    """The facts the picture writes in its band of notes (and the replay page under its board): the game's dice,
    Hourglass tokens owed, what the pending decision is about (for its decider), and the observer's memories
    (the top card its Crystal Orb showed, the cards it saw and passed on in the draft)."""
    notes = [f"Game dice: {game_dice_text(game)}"]
    owed = deferred_text(game)
    if owed is not None:
        notes.append(owed)
    if context:
        notes.append(f"Player {game.current_player}'s decision is about {'; '.join(context)}")
    if seat is not None:
        if players[seat]["orb_seen"] is not None:
            notes.append(f"Your Crystal Orb showed the draw pile's top card: {players[seat]['orb_seen']}")
        if players[seat]["draft_seen"]:
            notes.append(f"You saw and passed on in the draft: {', '.join(players[seat]['draft_seen'])}")
    return notes


def _wheel(draw: Canvas, view: dict) -> None:
    cx, cy, radius = 112, 112, 98
    small = _font(11)
    for space in range(1, 13):
        season = SEASONS[(space - 1) // 3]
        # Space 1 at the top, clockwise (Pillow's angles run clockwise from 3 o'clock).
        start = -90 + (space - 1) * 30
        box = (cx - radius, cy - radius, cx + radius, cy + radius)
        draw.pieslice(box, start, start + 30, fill=SEASON_COLORS[season], outline=BACKGROUND, width=2)
        angle = np.deg2rad(start + 15)
        tx, ty = cx + 0.84 * radius * np.cos(angle), cy + 0.84 * radius * np.sin(angle)
        draw.text((round(tx), round(ty)), str(space), font=small, fill=INK, anchor="mm")
    # The current space's outline, over its neighbours' edges.
    start = -90 + (view["position"] - 1) * 30
    draw.pieslice((cx - radius, cy - radius, cx + radius, cy + radius), start, start + 30, outline=INK, width=3)
    inner = 46
    draw.ellipse((cx - inner, cy - inner, cx + inner, cy + inner), fill=PANEL, outline=INK)
    year = "Year 3 (end)" if view["past_end"] else f"Year {view['year']}"
    draw.text((cx, cy - 12), year, font=_font(16), fill=INK, anchor="mm")
    draw.text((cx, cy + 10), view["season"], font=_font(14), fill=INK, anchor="mm")
    # The month marker: a dark disc on the current space.
    angle = np.deg2rad(start + 15)
    mx, my = round(cx + 0.64 * radius * np.cos(angle)), round(cy + 0.64 * radius * np.sin(angle))
    draw.ellipse((mx - 7, my - 7, mx + 7, my + 7), fill=INK, outline=PANEL, width=2)


def _die(draw: Canvas, x: int, y: int, die: dict, season: str) -> None:
    size = 100
    draw.rounded_rectangle((x, y, x + size, y + size), radius=10, fill=SEASON_COLORS[season], outline=INK, width=2)
    for k in range(die["pips"]):  # the pips that move the season marker, top left
        draw.ellipse((x + 8 + 11 * k, y + 8, x + 15 + 11 * k, y + 15), fill=INK)
    draw.text((x + size - 8, y + 6), f"die {die['die'] + 1}", font=_font(11), fill=INK, anchor="ra")
    lines = []
    if die["crystals"]:
        lines.append(f"+{die['crystals']} crystals")
    if die["gauge"]:
        lines.append("gauge +1")
    if die["transmute"]:
        lines.append("transmute")
    if die["draw"]:
        lines.append("draw a card")
    ty = y + 24
    if any(die["energy"]):
        _tokens_row(draw, x + 8, ty + 9, die["energy"], radius=9)
        ty += 22
    for line in lines:
        draw.text((x + 8, ty), line, font=_font(12), fill=INK)
        ty += 15
    owner = die["owner"]
    taker = f"player {owner}" if owner >= 0 else "not taken"
    color = SEAT_COLORS[owner] if owner >= 0 else MUTED
    draw.text((x + size // 2, y + size + 6), taker, font=_font(13), fill=color, anchor="ma")


def _header_text(draw: Canvas, view: dict) -> None:
    x, y, width = 830, 10, WIDTH - 840
    body, bold = _font(13), _font(16)
    draw.text((x, y), f"Seasons - {view['num_players']} players, {view['level']}", font=bold, fill=INK)
    y += 22
    seat = view["seat"]
    if seat is None:
        draw.rectangle((x, y, x + 270, y + 18), fill=INK)
        draw.text((x + 4, y + 2), "GOD VIEW: every hand and library shown", font=body, fill=PANEL)
    else:
        draw.rectangle((x, y, x + 270, y + 18), fill=SEAT_COLORS[seat])
        draw.text((x + 4, y + 2), f"As seen by player {seat}", font=body, fill=PANEL)
    y += 24
    lines = [
        f"{view['season']}, space {view['position']} of 12; first player {view['first_player']}",
        f"Draw pile {view['draw_pile']} cards, discard pile {view['discard_pile']}",
    ]
    if view["over"]:
        lines.append("Game over. Scores " + ", ".join(str(p["score"]) for p in view["players"]))
        lines.append("Winner(s): " + ", ".join(f"player {p}" for p in view["winners"]))
    else:
        lines.append(f"Player {view['decider']} decides: {view['decision']}")
        options = view["options"]
        if options is not None:
            lines.extend("  - " + label for label in options[:4])
            if len(options) > 4:
                lines.append(f"  (+{len(options) - 4} more options)")
    for line in lines:
        draw.text((x, y), _fit(draw, line, body, width), font=body, fill=INK)
        y += 17


def _card_chip(draw: Canvas, x: int, y: int, card: dict) -> None:
    width, height = 172, 34
    tapped = card["tapped"]
    fill = TAPPED_FILL if tapped else (ITEM_FILL if card["item"] else FAMILIAR_FILL)
    draw.rounded_rectangle((x, y, x + width, y + height), radius=5, fill=fill, outline=MUTED if tapped else INK)
    name = _fit(draw, card["name"], _font(12), width - 10)
    draw.text((x + 5, y + 3), name, font=_font(12), fill=MUTED if tapped else INK)
    status = "tapped" if tapped else ("item" if card["item"] else "familiar")
    draw.text((x + 5, y + 18), status, font=_font(11), fill=MUTED)
    if card["stored"] is not None:
        _tokens_row(draw, x + 60, y + 25, card["stored"], radius=7)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _names(names: list[str]) -> str:
    return ", ".join(names) or "-"


def _panel(draw: Canvas, view: dict, p: int) -> None:
    player = view["players"][p]
    y0 = HEADER_HEIGHT + PANEL_HEIGHT * p
    acting = view["decider"] == p
    box = (6, y0 + 3, WIDTH - 7, y0 + PANEL_HEIGHT - 4)
    draw.rectangle(box, fill=PANEL, outline=SEAT_COLORS[p], width=4 if acting else 1)
    body, small = _font(13), _font(11)
    title = f"Player {p}" + (" (seen from here)" if view["seat"] == p else "")
    draw.text((16, y0 + 9), title, font=_font(16), fill=SEAT_COLORS[p])
    if acting:
        tx = 16 + round(draw.textlength(title, font=_font(16))) + 10
        draw.polygon([(tx, y0 + 10), (tx, y0 + 24), (tx + 12, y0 + 17)], fill=SEAT_COLORS[p])
        draw.text((tx + 18, y0 + 10), "deciding", font=body, fill=SEAT_COLORS[p])
    # Left column: the counters.
    x, y = 16, y0 + 34
    draw.text((x, y), f"Crystals {player['crystals']}", font=body, fill=CRYSTAL)
    draw.text((x + 150, y), f"{'Final score' if view['over'] else 'Score now'} {player['score']}", font=body, fill=INK)
    y += 26
    draw.text((x, y - 7), "Reserve", font=body, fill=INK)
    for k, energy in enumerate(ENERGIES):
        _token(draw, x + 72 + 26 * k, y, energy, player["reserve"][k], radius=10)
    draw.text((x + 182, y - 7), f"{sum(player['reserve'])}/{player['reserve_limit']}", font=body, fill=MUTED)
    y += 18
    gauge = player["gauge"]
    draw.text((x, y), f"Gauge {gauge} ({len(player['in_play'])} in play)", font=body, fill=INK)
    y += 17
    for k in range(GAUGE_MAX):
        cell = (x + 17 * k, y, x + 17 * k + 14, y + 10)
        draw.rectangle(cell, fill=SEAT_COLORS[p] if k < gauge else PANEL, outline=MUTED)
    y += 18
    draw.text((x, y), "Bonuses used", font=body, fill=INK)
    for k in range(MAX_BONUSES):
        bonus = (x + 96 + 18 * k, y + 1, x + 96 + 18 * k + 13, y + 14)
        draw.rectangle(bonus, fill=INK if k < player["bonuses_used"] else PANEL, outline=INK)
    draw.text((x + 160, y), f"{player['bonuses_used']}/{MAX_BONUSES}", font=body, fill=MUTED)
    y += 20
    library = sum(player["library_sizes"])
    year2, year3 = player["library_sizes"]
    hand = f"Hand {_count(player['hand_size'], 'card')}, library {year2} + {year3} (years 2, 3)"
    draw.text((x, y), hand, font=body, fill=INK)
    if player["turn"] is not None:
        draw.text((x, y + 17), _fit(draw, player["turn"].capitalize(), small, 290), font=small, fill=SEAT_COLORS[p])
    # Right: the cards in play (at most 15: the gauge's maximum), 5 to a row.
    cx0, cy0 = 310, y0 + 10
    if not player["in_play"]:
        draw.text((cx0, cy0 + 10), "No cards in play", font=body, fill=MUTED)
    for k, card in enumerate(player["in_play"]):
        row, col = divmod(k, 5)
        _card_chip(draw, cx0 + 176 * col, cy0 + 38 * row, card)
    # Bottom right: the cards this observer may name.
    width = WIDTH - cx0 - 16
    ty = y0 + PANEL_HEIGHT - 40
    if player["hand"] is not None:
        lines = [f"Hand: {_names(player['hand'])}"]
        if player["pack"]:
            lines.append(f"Draft pack: {_names(player['pack'])}")
        elif library:
            year2, year3 = player["library"]
            lines.append(f"Library: year 2: {_names(year2)}; year 3: {_names(year3)}")
    else:
        lines = [f"Hand: {_count(player['hand_size'], 'card')} (hidden)"]
        if player["pack_size"]:
            lines.append(f"Draft pack: {player['pack_size']} cards (hidden)")
        elif library:
            year2, year3 = player["library_sizes"]
            lines.append(f"Library: {year2} + {year3} cards (hidden)")
    for line in lines:
        draw.text((cx0, ty), _fit(draw, line, small, width), font=small, fill=INK)
        ty += 15


def _wrap(draw: Canvas, text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """``text`` cut at spaces into lines of at most ``width`` pixels."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if line and draw.textlength(candidate, font=font) > width:
            lines.append(line)
            line = "    " + word
        else:
            line = candidate
    return [*lines, line]


def _notes_band(draw: Canvas, view: dict) -> None:
    """The band under the header: ``view["notes"]``, wrapped (the last line cut with an ellipsis if they overflow)."""
    font, width = _font(12), WIDTH - 32
    lines = [line for note in view["notes"] for line in _wrap(draw, note, font, width)]
    if len(lines) > NOTE_LINES:
        lines = [*lines[: NOTE_LINES - 1], _fit(draw, lines[NOTE_LINES - 1] + " ...", font, width)]
    draw.line((12, NOTES_TOP - 1, WIDTH - 12, NOTES_TOP - 1), fill=MUTED)
    for k, line in enumerate(lines):
        draw.text((16, NOTES_TOP + 2 + NOTE_LINE_HEIGHT * k), _fit(draw, line, font, width), font=font, fill=INK)


def draw_view(view: dict) -> Image.Image:
    """The picture of a ``board_view``."""
    image = Image.new("RGB", picture_size(view["num_players"]), BACKGROUND)
    draw = Canvas(image)
    _wheel(draw, view)
    draw.text((236, 8), f"Dice rolled ({view['dice_season']} dice)", font=_font(14), fill=INK)
    if view["dice"]:
        for k, die in enumerate(view["dice"]):
            _die(draw, 236 + 116 * k, 32, die, view["dice_season"])
    else:
        draw.text((236, 40), "No dice rolled yet this round", font=_font(13), fill=MUTED)
    _header_text(draw, view)
    _notes_band(draw, view)
    for p in range(view["num_players"]):
        _panel(draw, view, p)
    return image


def render_image(game: Game, seat: int | None = None) -> Image.Image:
    """The picture of ``game`` as ``seat`` sees it (``None``: the god view), as a Pillow RGB image."""
    return draw_view(board_view(game, seat))


def render_rgb(game: Game, seat: int | None = None) -> np.ndarray:
    """The picture of ``game`` as ``seat`` sees it (``None``: the god view): an ``(H, W, 3)`` uint8 array."""
    return np.array(render_image(game, seat))


def display_available() -> bool:
    """Whether a picture can be shown in a window: a display exists and matplotlib's backend is interactive.

    The backend is only read, never switched (that is the application's choice).
    """
    if sys.platform not in ("darwin", "win32") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    import matplotlib

    try:
        from matplotlib.backends import BackendFilter, backend_registry

        interactive = backend_registry.list_builtin(BackendFilter.INTERACTIVE)
    except ImportError:  # matplotlib before 3.9
        interactive = matplotlib.rcsetup.interactive_bk
    return matplotlib.get_backend().lower() in {name.lower() for name in interactive}


class PictureWindow:
    """A matplotlib window showing the latest picture (the ``human`` render mode where a display exists)."""

    def __init__(self, title: str = "Seasons") -> None:
        self.title = title
        self._figure = None
        self._image = None

    def show(self, frame: np.ndarray) -> None:
        import matplotlib.pyplot as plt

        if self._figure is None or not plt.fignum_exists(self._figure.number):
            height, width = frame.shape[:2]
            self._figure = plt.figure(self.title, figsize=(width / 100, height / 100), dpi=100)
            axes = self._figure.add_axes((0, 0, 1, 1))
            axes.set_axis_off()
            self._image = axes.imshow(frame)
        else:
            self._image.set_data(frame)
        self._figure.canvas.draw_idle()
        plt.pause(0.001)

    def close(self) -> None:
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = None
            self._image = None


class BoardRenderer:
    """``render()`` of both environments: the picture (``rgb_array``), the text board (``ansi``), or for
    ``human`` the picture in a window where a display exists and the text board on standard output otherwise.

    The window is opened at the first ``human`` render and never copied or pickled with its environment: a
    copy opens its own when it renders."""

    def __init__(self, mode: str | None) -> None:
        self.mode = mode
        self._window: PictureWindow | None = None

    def render(self, game: Game, seat: int | None) -> str | np.ndarray | None:
        """The position as ``seat`` sees it (``None``: the god view), in this renderer's mode."""
        if self.mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='rgb_array', 'ansi' or 'human'."
            )
            return None
        if game is None:
            raise RuntimeError("render() called before reset()")
        if self.mode == "rgb_array":
            return render_rgb(game, seat=seat)
        if self.mode == "ansi":
            return render_text(game, viewer=seat)
        if self._window is None and display_available():
            self._window = PictureWindow("Seasons")
        if self._window is not None:
            self._window.show(render_rgb(game, seat=seat))
        else:
            print(render_text(game, viewer=seat))
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict:
        return {"mode": self.mode}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["mode"])

    def __deepcopy__(self, memo: dict) -> BoardRenderer:
        return BoardRenderer(self.mode)
