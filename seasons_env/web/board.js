// The board drawing both browser pages share: the play page of `seasons play --web` (served as /board.js before
// its play.js) and the replay page of `seasons replay --html` (inlined before its replay.js). It draws a
// `board_view` (seasons_env/picture.py) with DOM calls: text goes in by textContent only, so no name from a game or
// a record is ever parsed as HTML. The pages add what is theirs (controls, hidden hands, the notes) around it.
const SeasonsBoard = (() => {
  "use strict";
  const ENERGIES = ["water", "earth", "fire", "air"];
  const ENERGY_COLORS = {water: "#3476d6", earth: "#86603a", fire: "#d63c2c", air: "#ecd446"};
  const SEASONS = ["winter", "spring", "summer", "autumn"];
  const SEASON_COLORS = {winter: "#96c4e8", spring: "#a0d282", summer: "#f4ca60", autumn: "#e29264"};
  const SVG = "http://www.w3.org/2000/svg";

  function filled(node, attrs, text) {
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  // An HTML element and an SVG element with attributes and text.
  const el = (tag, attrs, text) => filled(document.createElement(tag), attrs, text);
  const svg = (tag, attrs, text) => filled(document.createElementNS(SVG, tag), attrs, text);
  const names = (list) => (list.length ? list.join(", ") : "-");
  const cardsCount = (n) => n + (n === 1 ? " card" : " cards");

  // Energy tokens of counts in the order of ENERGIES (all: zeros shown too).
  function tokens(counts, all) {
    const box = el("span");
    counts.forEach((n, i) => {
      if (n || all) {
        const t = el("span", {class: "tok " + ENERGIES[i], title: ENERGIES[i]}, String(n));
        t.style.background = ENERGY_COLORS[ENERGIES[i]];
        box.appendChild(t);
      }
    });
    return box;
  }

  // Energy tokens in the pages' notation: each type as its coloured token with the count, then its name
  // ("1 water, 2 fire"), as the option labels and the move log write them.
  function energyWords(counts) {
    const box = el("span", {class: "energy-words"});
    counts.forEach((n, i) => {
      if (!n) return;
      if (box.childNodes.length) box.appendChild(document.createTextNode(", "));
      const pair = el("span");  // the token and its type's name on one line
      pair.style.whiteSpace = "nowrap";
      const t = el("span", {class: "tok " + ENERGIES[i], title: ENERGIES[i]}, String(n));
      t.style.background = ENERGY_COLORS[ENERGIES[i]];
      pair.appendChild(t);
      pair.appendChild(document.createTextNode(ENERGIES[i]));
      box.appendChild(pair);
    });
    return box;
  }

  // The season wheel with the month marker; attrs are the page's own attributes of the <svg> (its size or its
  // accessible name).
  function wheel(view, attrs) {
    const s = svg("svg", Object.assign({viewBox: "-100 -100 200 200", id: "wheel"}, attrs));
    let marker = null;
    for (let space = 1; space <= 12; space++) {
      const a0 = (-90 + (space - 1) * 30) * Math.PI / 180, a1 = a0 + Math.PI / 6, r = 96;
      const season = SEASONS[Math.floor((space - 1) / 3)];
      const path = `M0,0 L${r * Math.cos(a0)},${r * Math.sin(a0)} A${r},${r} 0 0 1 ${r * Math.cos(a1)},${r * Math.sin(a1)} Z`;
      s.appendChild(svg("path", {d: path, fill: SEASON_COLORS[season], stroke: "#f6f3ec", "stroke-width": 2}));
      const am = a0 + Math.PI / 12;
      s.appendChild(svg("text", {x: 78 * Math.cos(am), y: 78 * Math.sin(am) + 4, "text-anchor": "middle", "font-size": 11}, String(space)));
      if (space === view.position) marker = [path, am];
    }
    // The current space's outline over its neighbours, and the month marker on it.
    s.appendChild(svg("path", {d: marker[0], fill: "none", stroke: "#222", "stroke-width": 3}));
    s.appendChild(svg("circle", {cx: 55 * Math.cos(marker[1]), cy: 55 * Math.sin(marker[1]), r: 7, fill: "#222", stroke: "#fff", "stroke-width": 2, id: "marker"}));
    s.appendChild(svg("circle", {r: 40, fill: "#fff", stroke: "#222"}));
    // "Year 3 (end)" is smaller so that it fits the circle.
    s.appendChild(svg("text", {y: -4, "text-anchor": "middle", "font-size": view.past_end ? 11 : 15, id: "year"}, view.past_end ? "Year 3 (end)" : "Year " + view.year));
    s.appendChild(svg("text", {y: 14, "text-anchor": "middle", "font-size": 13, id: "season"}, view.season));
    return s;
  }

  // The dice of the round under a caption; drawDie(d) draws one with the page's own extras.
  function dice(view, caption, drawDie) {
    const box = el("div");
    box.appendChild(el("div", {}, caption));
    const row = el("div", {class: "dice", id: "dice"});
    if (!view.dice.length) row.appendChild(el("span", {class: "hidden-info"}, "No dice rolled yet this round"));
    for (const d of view.dice) row.appendChild(drawDie(d));
    box.appendChild(row);
    return box;
  }

  // One season die (its face: what taking it gives; class "taken" once taken) and under it who took it: taker(owner)
  // names the taker. Returns the whole and the face, for the page's controls.
  function die(d, season, taker) {
    const face = el("div", {class: "die" + (d.owner >= 0 ? " taken" : ""), "data-die": String(d.die)});
    face.style.background = SEASON_COLORS[season];
    face.appendChild(el("div", {}, "die " + (d.die + 1) + " · " + "●".repeat(d.pips)));
    // In the order and words of the option that takes it: energy, crystals, gauge, transmute, card.
    if (d.energy.some((n) => n)) face.appendChild(el("div")).appendChild(energyWords(d.energy));
    if (d.crystals) face.appendChild(el("div", {}, "+" + d.crystals + " crystals"));
    if (d.gauge) face.appendChild(el("div", {}, "gauge +1"));
    if (d.transmute) face.appendChild(el("div", {}, "transmute"));
    if (d.draw) face.appendChild(el("div", {}, "draw a card"));
    const wrap = el("div");
    wrap.appendChild(face);
    wrap.appendChild(el("div", {class: "taker"}, d.owner >= 0 ? taker(d.owner) : "not taken"));
    return {wrap, face};
  }

  // A player's panel (bordered in the seat's colour, thicker while they decide) with the public figures: crystals,
  // score, reserve, summoning gauge and bonuses. seat: {title, color, gaugeMax, maxBonuses}.
  function playerPanel(view, p, seat) {
    const info = view.players[p];
    const box = el("div", {class: "player" + (view.decider === p ? " acting" : ""), id: "player-" + p});
    box.style.borderColor = seat.color;
    const stats = el("div", {class: "stats"});
    const title = el("div", {}, seat.title + (view.decider === p ? " ▶ deciding" : ""));
    title.style.color = seat.color;
    title.style.fontWeight = "600";
    stats.appendChild(title);
    stats.appendChild(el("div", {id: "p" + p + "-crystals"}, "Crystals " + info.crystals));
    stats.appendChild(el("div", {id: "p" + p + "-score"}, (view.over ? "Final score " : "Score now ") + info.score));
    const reserve = el("div", {id: "p" + p + "-reserve"}, "Reserve ");
    reserve.appendChild(tokens(info.reserve, true));
    reserve.appendChild(el("span", {class: "hidden-info"}, " " + info.reserve.reduce((a, b) => a + b, 0) + "/" + info.reserve_limit));
    stats.appendChild(reserve);
    const gauge = el("div", {class: "gauge", id: "p" + p + "-gauge"}, "Gauge " + info.gauge + " (" + info.in_play.length + " in play) ");
    const cells = el("div");
    for (let k = 0; k < seat.gaugeMax; k++) {
      const cell = el("span");
      if (k < info.gauge) cell.style.background = seat.color;
      cells.appendChild(cell);
    }
    gauge.appendChild(cells);
    stats.appendChild(gauge);
    stats.appendChild(el("div", {id: "p" + p + "-bonuses"}, "Bonuses used " + info.bonuses_used + "/" + seat.maxBonuses));
    box.appendChild(stats);
    return {box, stats};
  }

  // A player's cards in play; drawCard(c) draws one card (the page's classes and controls), itemWord names an item.
  function inPlay(info, p, drawCard, itemWord) {
    const cards = el("div", {class: "cards", id: "p" + p + "-in-play"});
    if (!info.in_play.length) cards.appendChild(el("span", {class: "hidden-info"}, "No cards in play"));
    for (const c of info.in_play) {
      const node = drawCard(c);
      const small = el("small", {}, c.tapped ? "tapped " : (c.item ? itemWord + " " : "familiar "));
      if (c.stored) small.appendChild(tokens(c.stored, false));
      node.appendChild(small);
      cards.appendChild(node);
    }
    return cards;
  }

  return Object.freeze({
    ENERGIES, ENERGY_COLORS, SEASONS, SEASON_COLORS, el, svg, names, cardsCount, tokens, energyWords, wheel, dice, die,
    playerPanel, inPlay,
  });
})();
