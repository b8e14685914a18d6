"""A hand-written player: a position evaluation, one-ply lookahead in play, and rules where one ply is blind.

* ``evaluate(game, seat)``: the seat's projected final score minus its best opponent's (with 3-4 players, a
  blend of the best and the mean opponent), in score points. It reads only public facts and the seat's own
  hand and library sets, so a search may call it on any determinization. It handles every position: in the
  middle of a turn with sub-decisions pending, between turns, after the seat's last turn, and the end of the
  game (the real margin). ``margins(game, seat)`` gives every player's margin as ``seat`` can judge it
  (its own value with its private cards, the others' from public facts), for a search.

  The projection: crystals; tokens at what the best transmutation left in the game is worth
  (``values.token_values``), the last places of the reserve discounted and the excess over the limit lost;
  the transmute ability held in the turn; cards in play at prestige plus what they still yield (per round,
  per season change, per later summon, at the end of the game); the cards waiting in hand and libraries,
  best first, each taking the tokens it needs from the reserve and then filling the summoning room and the
  energy the rounds left will bring (a card never summoned costs 5); what opponents' Figrim, Titus and Kairn
  will take; minus the bonus penalty. Opponents are valued the same way from public facts (their hands by
  size only). The evaluation lives in ``agents/heuristic_eval.py`` (written for speed, with caches keyed by
  everything each cached value reads; its tables and single-card values in ``agents/heuristic_cards.py``)
  and is re-exported here.
* ``HeuristicAgent``: in play it tries each legal action on a clone of its view, lets its own sub-decisions
  that follow resolve greedily, and keeps the action whose position evaluates best (ending the turn is
  valued as the turn ends, before the next player's die). Where one ply is blind it looks further or uses a
  rule: a gauge or exchange bonus is worth the summon it makes possible now (not tried when no new summon can
  follow it), an activation is also tried
  with the summon it pays for; the die choice applies each face to a copy, lets the next chooser answer with
  the face the die table ranks first for them (which fixes the leftover die, hence the pace) and evaluates;
  Die of Malice compares the face with the mean reroll; the draft takes the best card value under a gauge
  budget; the library split follows the cards' split preferences; Naria gives away the least valuable cards.
  Its knowledge is data in ``agents/values.py``: the card and die-action tables, token values and the
  evaluation's weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from seasons_env import Game
from seasons_env.engine import Card, steps
from seasons_env.engine import actions as A
from seasons_env.engine.data import DICE, IS_ITEM

from .base import SeededAgent
from .heuristic_cards import COST, ELEMENTAL_AMULET, ENERGY_COST, HAND_OF_FORTUNE
from .heuristic_eval import evaluate, margins
from .values import CARDS as CARD_VALUES
from .values import DIE, DRAFT, DRAFT_GAUGE, SPLIT

_TURN = steps.kind("turn")
_CHOOSE_DIE = steps.kind("choose_die")
_GAIN_ENERGY = steps.kind("gain_energy")
_DRAFT_PICK = steps.kind("draft_pick")
_LIBRARY = steps.kind("library_split")
_MALICE = steps.kind("die_of_malice_window")
_DRAW_SYMBOL = steps.kind("draw_symbol")
_NARIA_GIVE = steps.kind("naria_give")

#: Decisions the settling of a lookahead never answers: they open a new phase of the seat's play.
BOUNDARY = frozenset((_TURN, _CHOOSE_DIE, _DRAFT_PICK, _LIBRARY, _MALICE, _DRAW_SYMBOL))
#: Added to the value of ending the turn: on a tie with an action, stop rather than spend.
END_TURN_TIE_BONUS = 1e-6

# ---------------------------------------------------------------------------- the player


class HeuristicAgent(SeededAgent):
    """One-ply lookahead over a hand-written evaluation, with rules for the draft, split and dice.

    Deterministic given its seed (``reset``); the generator only breaks ties in the draft."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._plan: tuple | None = None  # (seat, year-2 set, year-3 set) of the library split under way

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None

    def state_dict(self) -> dict:
        """What the agent carries from one decision to the next, as plain values: its generator's state and the
        library-split plan under way (``load_state_dict`` restores it)."""
        plan = self._plan
        return {
            "rng": self.rng.bit_generator.state,
            "plan": None if plan is None else [plan[0], list(plan[1]), list(plan[2])],
        }

    def load_state_dict(self, state: dict) -> None:
        """Continue from ``state_dict()``'s values (from a checkpoint: checked)."""
        if not isinstance(state, dict) or set(state) != {"rng", "plan"}:
            raise ValueError(f"a heuristic agent's state is a dict of rng and plan; got {state!r}")
        plan = state["plan"]
        if plan is not None and not (
            isinstance(plan, list)
            and len(plan) == 3
            and isinstance(plan[0], int)
            and all(isinstance(cards, list) and all(isinstance(c, int) for c in cards) for cards in plan[1:])
        ):
            raise ValueError(f"a heuristic agent's plan is None or [seat, year-2 cards, year-3 cards]; got {plan!r}")
        self.rng = self.generator_from_state(state["rng"], "a heuristic agent")
        self._plan = None if plan is None else (plan[0], tuple(plan[1]), tuple(plan[2]))

    def evaluate(self, game: Game, seat: int) -> float:
        """Position value for ``seat`` (see the module-level ``evaluate``)."""
        return evaluate(game, seat)

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        """One of ``legal`` for the decision pending in ``view`` (a determinized copy: it may be changed)."""
        if len(legal) == 1:
            return int(legal[0])
        kind = view.pending_task()[0]
        if kind == _DRAFT_PICK:
            return self._draft(view, seat, legal)
        if kind == _LIBRARY:
            return self._split(view, seat, legal)
        if kind == _CHOOSE_DIE:
            return self._choose_die(view, seat, legal)
        if kind == _MALICE:
            return self._malice(view, seat, legal)
        if kind == _DRAW_SYMBOL:
            return A.DRAW_CARD if A.DRAW_CARD in legal else int(legal[0])
        if kind == _NARIA_GIVE:
            return min(legal, key=lambda a: CARD_VALUES[A.card_of_choice(a)].draft)
        return self._one_ply(view, seat, legal)

    # ------------------------------------------------------------------ one ply

    def _one_ply(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        values = action_values(view, seat, legal)
        return max(legal, key=lambda a: values[a])

    # ------------------------------------------------------------------ dice

    def _face_value(self, view: Game, seat: int, die: int, face: int, next_chooser: int = -1) -> float:
        """Evaluation once ``seat`` holds this die and face (its symbols applied) and ``next_chooser``, if any,
        has taken the die the table values most for them, which also sets the leftover die and so the pace."""
        g = view.preview_die(seat, die, face)
        if next_chooser >= 0:
            rest = [(d, f) for d, f, o in g.rolled if o < 0]
            d2, f2 = max(rest, key=lambda df: _table_face_value(g, next_chooser, df[0], df[1]))
            g = g.preview_die(next_chooser, d2, f2)
        value = evaluate(g, seat)
        if DICE[g.dice_season][die][face].draw:
            value += DIE["draw"] * _draw_value(g, seat)
        return value

    def _choose_die(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        """The die whose face is worth most once the next chooser has answered."""
        pending = view.pending_steps()
        # The next chooser answers only when a die will still be left over after its choice.
        nxt = pending[1][1] if len(pending) >= 2 and pending[1][0] == _CHOOSE_DIE and len(legal) > 2 else -1
        best, best_value = int(legal[0]), float("-inf")
        for a in legal:
            die = A.die_of_action(a)
            face = next(f for d, f, _ in view.rolled if d == die)
            v = self._face_value(view, seat, die, face, nxt)
            if v > best_value:
                best, best_value = int(a), v
        return best

    def _malice(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        die, face = view.die_taken(seat)
        keep = self._face_value(view, seat, die, face)
        reroll = sum(self._face_value(view, seat, die, f) for f in range(6)) / 6.0 + DIE["malice_crystals"]
        fairies = sum(view.count_in_play(q, Card.THIEVING_FAIRIES) for q in view.opponents(seat))
        reroll -= DIE["malice_fairy"] * fairies
        if reroll > keep + DIE["malice_margin"]:
            return next(int(a) for a in legal if a != A.USE_DIE)
        return A.USE_DIE

    # ------------------------------------------------------------------ prelude

    def _draft(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        """The pick with the best value for this player, keeping the gauge the picks demand near the budget."""
        picked = view.hand[seat]
        gauge_used = sum(CARD_VALUES[c].gauge for c in picked)
        has_chest = Card.SEALED_CHEST_OF_URM in picked
        familiars = sum(1 for c in picked if not IS_ITEM[c])

        def score(a: int) -> float:
            c = A.card_of_choice(a)
            row = CARD_VALUES[c]
            s = row.draft
            over = gauge_used + row.gauge - DRAFT_GAUGE  # the summoning gauge the picks would demand past the budget
            if over > 0:
                s -= DRAFT["gauge_over"] * min(over, max(row.gauge, 0.0))
            if (has_chest and not IS_ITEM[c]) or (c == Card.SEALED_CHEST_OF_URM and familiars >= 2):
                s += DRAFT["familiar_with_chest"]
            return s + 1e-3 * self.rng.random()

        return int(max(legal, key=score))

    def _split(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        """Library split: the plan (year-2 set, year-3 set) that best fits when each card pays off."""
        lib2, lib3 = view.library[seat]
        return self.split_choice(seat, view.pending.args["year"], view.hand[seat], lib2, lib3, view.num_players, legal)

    def split_choice(
        self,
        seat: int,
        year: int,
        hand: Sequence[int],
        lib2: Sequence[int],
        lib3: Sequence[int],
        num_players: int,
        legal: Sequence[int],
    ) -> int:
        """The library placement of ``year``'s set for ``seat`` holding ``hand`` (sorted) with the library sets so
        far: the next card of the plan under way, or of a new plan when the sets no longer fit it."""
        plan = self._plan
        if plan is None or plan[0] != seat or not _plan_fits(plan, hand, lib2, lib3):
            plan = self._plan = (seat, *_split_plan(list(hand), 3 - len(lib2), 3 - len(lib3), num_players))
        wanted = [c for c in plan[year - 1] if c in hand]
        if not wanted:
            return int(legal[0])
        return A.choose_card_action(wanted[0])


def _plan_fits(plan: tuple, hand: Sequence[int], lib2: Sequence[int], lib3: Sequence[int]) -> bool:
    """Is the split plan still the one being carried out (its sets hold what the libraries hold)?"""
    _, set2, set3 = plan
    rest2, rest3 = list(set2), list(set3)
    for c in lib2:
        if c not in rest2:
            return False
        rest2.remove(c)
    for c in lib3:
        if c not in rest3:
            return False
        rest3.remove(c)
    pool = list(hand)
    for c in rest2 + rest3:
        if c not in pool:
            return False
        pool.remove(c)
    return True


def _split_plan(hand: list[int], need2: int, need3: int, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The cards of ``hand`` for the year-2 and the year-3 sets (``need2`` and ``need3`` of them)."""
    best_plan, best_score = ((), ()), float("-inf")
    index = range(len(hand))
    fit_hand, fit2, fit3 = ([CARD_VALUES[c].split[year] for c in hand] for year in range(3))
    energy_of = [ENERGY_COST[n][c] for c in hand]
    cheap = [energy_of[k] <= 2 and COST[n][c][4] <= 3 for k, c in enumerate(hand)]
    cost_year1, cheap_year1 = SPLIT["cost_year1"], SPLIT["cheap_year1"]
    # The terms of a year-3 set and of a kept hand (a bit mask of card indexes), each computed once: a set
    # recurs under many year-2 sets. Sums run over the cards in index order, as the plain formula's.
    year3_terms: dict[tuple[int, ...], tuple[int, float]] = {}
    hand_terms: dict[int, tuple[float, float, bool]] = {}
    everything = (1 << len(hand)) - 1
    for set2 in combinations(index, need2):
        rest = [k for k in index if k not in set2]
        rest_mask = everything ^ sum(1 << k for k in set2)
        score2 = sum(map(fit2.__getitem__, set2))
        for set3 in combinations(rest, need3):
            terms3 = year3_terms.get(set3)
            if terms3 is None:
                terms3 = year3_terms[set3] = (sum(1 << k for k in set3), sum(map(fit3.__getitem__, set3)))
            mask3, score3 = terms3
            keep_mask = rest_mask ^ mask3
            kept = hand_terms.get(keep_mask)
            if kept is None:
                keep = [k for k in index if keep_mask >> k & 1]
                energy = sum(map(energy_of.__getitem__, keep))
                kept = hand_terms[keep_mask] = (
                    sum(map(fit_hand.__getitem__, keep)),
                    cost_year1 * max(0, energy - 6),
                    any(map(cheap.__getitem__, keep)),
                )
            score_hand, cost_term, has_cheap = kept
            s = score2 + score3 + score_hand
            s += cost_term
            if has_cheap:
                s += cheap_year1
            if s > best_score:
                best_plan, best_score = (tuple(hand[k] for k in set2), tuple(hand[k] for k in set3)), s
    return best_plan


def action_values(view: Game, seat: int, legal: Sequence[int]) -> dict[int, float]:
    """One-ply value of each legal action: the evaluation once the seat's own sub-decisions have settled."""
    values = {}
    kind = view.pending_task()[0]
    in_turn = kind == _TURN
    for a in legal:
        if in_turn and a == A.END_TURN:
            # The position as the turn ends, before the next player's die adds to their side
            values[a] = evaluate(view.preview_turn_end(), seat) + END_TURN_TIE_BONUS
            continue
        if in_turn and (a == A.BONUS_GAUGE or a == A.BONUS_EXCHANGE) and not _may_enable_summon(view, seat, a, legal):
            values[a] = float("-inf")  # what _enabled_summon_value finds once the bonus is settled
            continue
        g = view.clone()
        g.apply(a)
        value = None
        if kind != _GAIN_ENERGY:  # the tokens still to choose are valued as pending by the evaluation
            g, value = settle(g, seat)
        if in_turn and (a == A.BONUS_GAUGE or a == A.BONUS_EXCHANGE):
            # A gauge or exchange bonus is worth only the summon it makes possible now.
            values[a] = _enabled_summon_value(g, seat, legal)
            continue
        if value is None:
            value = evaluate(g, seat)
        if in_turn and A.is_activation(a):
            # An activation may pay for a summon (tokens, gauge, a freed slot): look one summon further.
            value = max(value, _enabled_summon_value(g, seat, legal))
        values[a] = value
    return values


def _may_enable_summon(view: Game, seat: int, bonus: int, legal: Sequence[int]) -> bool:
    """Can the gauge or exchange bonus make a summon legal that is not in ``legal``? If not, it is worth
    ``-inf`` (``_enabled_summon_value``) and need not be tried. Only the bonus's own steps follow it: the gauge
    bonus adds one slot, the exchange gives back two reserve tokens and gains two. So a new summon needs a card
    in hand that is not summonable now and whose crystal cost fits the budget; with the gauge, a card kept out
    by the room only; with the exchange, room, and a token deficit (``State.summonable_from_hand``) that two
    more tokens can bring within what Hand of Fortune covers."""
    room = view.has_room(seat)
    if room == (bonus == A.BONUS_GAUGE):
        return False
    budget = view.crystals[seat] - view.leech_toll(seat)
    cost = COST[view.num_players]
    available = view.spendable(seat)
    hands = view.count_in_play(seat, HAND_OF_FORTUNE)
    for c in view.hand[seat]:
        need = cost[c]
        if A.summon_action(c) in legal or budget < need[4]:
            continue
        if bonus == A.BONUS_GAUGE or c == ELEMENTAL_AMULET:
            return True
        total = need[0] + need[1] + need[2] + need[3]
        deficit = sum(need[t] - available[t] for t in range(4) if need[t] > available[t])
        if deficit <= (min(hands, total - 1) if total > 1 else 0) + 2:
            return True
    return False


def settle(game: Game, seat: int, budget: int = 24) -> tuple[Game, float | None]:
    """Let the seat's own sub-decisions that follow an action resolve greedily (static one-ply). Returns the
    position reached (``game`` itself or the copy in which the last choice was tried) and its evaluation when
    that was made on the way (else ``None``)."""
    value = None
    while budget > 0 and game.final_scores is None:
        task = game.pending_task()
        if task[1] != seat or task[0] in BOUNDARY:
            break
        legal = game.legal_action_list()
        best, best_value, reached = legal[0], float("-inf"), None
        for a in legal:
            g = game.clone()
            g.apply(a)
            v = evaluate(g, seat)
            if v > best_value:
                best, best_value, reached = a, v, g
        if reached is None:
            game.apply(best)
            value = None
        else:
            game, value = reached, best_value  # the best choice is already applied to that copy
        budget -= 1
    return game, value


def _enabled_summon_value(game: Game, seat: int, before: Sequence[int]) -> float:
    """The best position reached by a summon that was not possible ``before`` (two plies)."""
    if game.final_scores is not None or game.pending_task()[:2] != (_TURN, seat):
        return float("-inf")
    best = float("-inf")
    for a in game.legal_action_list():
        if A.is_summon(a) and a not in before:
            g = game.clone()
            g.apply(a)
            g, value = settle(g, seat)
            best = max(best, evaluate(g, seat) if value is None else value)
    return best


def _table_face_value(game: Game, p: int, die: int, face: int) -> float:
    """A face's worth to ``p`` from the die-action table and public facts only (for opponents' choices)."""
    spec = DICE[game.dice_season][die][face]
    room = max(0, game.reserve_limit(p) - sum(game.reserve[p]))
    value = DIE["energy"] * min(room, sum(spec.energy)) + DIE["crystal"] * spec.crystals
    if spec.gauge:
        value += DIE["gauge"]
    if spec.draw:
        value += DIE["draw_card"]
    if spec.transmute:
        value += DIE["transmute"] + DIE["transmute_token"] * sum(game.reserve[p])
    return value


def _draw_value(game: Game, seat: int) -> float:
    """Expected gain of drawing a card (kept only if it helps), over a few cards of the unseen pile."""
    pile = game.draw_pile[-4:] or game.discard_pile[:4]
    if not pile:
        return 0.0
    base = evaluate(game, seat)
    total = 0.0
    for c in pile:
        g = game.clone()
        g.hand_add(seat, c)
        total += max(0.0, evaluate(g, seat) - base)
    return total / len(pile)


__all__ = ["HeuristicAgent", "evaluate", "margins"]
