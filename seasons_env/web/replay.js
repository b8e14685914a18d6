// The replay page's script: draws the board of each position from the embedded data with DOM calls
// (textContent only: names from a record are never parsed as HTML).
(() => {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const steps = data.steps, last = steps.length - 1;
  const ENERGIES = ["water", "earth", "fire", "air"];
  const ENERGY_COLORS = {water: "#3476d6", earth: "#86603a", fire: "#d63c2c", air: "#ecd446"};
  const SEASON_COLORS = {winter: "#96c4e8", spring: "#a0d282", summer: "#f4ca60", autumn: "#e29264"};
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
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
  function wheel(view) {
    const s = svg("svg", {width: 200, height: 200, viewBox: "-100 -100 200 200", id: "wheel"});
    let marker = null;
    for (let space = 1; space <= 12; space++) {
      const a0 = (-90 + (space - 1) * 30) * Math.PI / 180, a1 = a0 + Math.PI / 6, r = 96;
      const season = data.seasons[Math.floor((space - 1) / 3)];
      const path = `M0,0 L${r * Math.cos(a0)},${r * Math.sin(a0)} A${r},${r} 0 0 1 ${r * Math.cos(a1)},${r * Math.sin(a1)} Z`;
      s.appendChild(svg("path", {d: path, fill: SEASON_COLORS[season], stroke: "#f6f3ec", "stroke-width": 2}));
      const am = a0 + Math.PI / 12;
      s.appendChild(svg("text", {x: 78 * Math.cos(am), y: 78 * Math.sin(am) + 4, "text-anchor": "middle",
        "font-size": 11}, String(space)));
      if (space === view.position) marker = [path, am];
    }
    // The current space's outline over its neighbours, and the month marker on it.
    s.appendChild(svg("path", {d: marker[0], fill: "none", stroke: "#222", "stroke-width": 3}));
    s.appendChild(svg("circle", {cx: 55 * Math.cos(marker[1]), cy: 55 * Math.sin(marker[1]), r: 7, fill: "#222",
      stroke: "#fff", "stroke-width": 2, id: "marker"}));
    s.appendChild(svg("circle", {r: 40, fill: "#fff", stroke: "#222"}));
    s.appendChild(svg("text", {y: -4, "text-anchor": "middle", "font-size": 15, id: "year"},
      view.past_end ? "Year 3 (end)" : "Year " + view.year));
    s.appendChild(svg("text", {y: 14, "text-anchor": "middle", "font-size": 13, id: "season"}, view.season));
    return s;
  }
  function die(d, season) {
    const box = el("div", {class: "die"});
    box.style.background = SEASON_COLORS[season];
    box.appendChild(el("div", {}, "die " + (d.die + 1) + " · " + "●".repeat(d.pips)));
    if (d.energy.some((n) => n)) box.appendChild(el("div")).appendChild(tokens(d.energy, false));
    if (d.crystals) box.appendChild(el("div", {}, "+" + d.crystals + " crystals"));
    if (d.gauge) box.appendChild(el("div", {}, "gauge +1"));
    if (d.transmute) box.appendChild(el("div", {}, "transmute"));
    if (d.draw) box.appendChild(el("div", {}, "draw a card"));
    const wrap = el("div");
    wrap.appendChild(box);
    wrap.appendChild(el("div", {class: "taker"}, d.owner >= 0 ? "player " + d.owner : "not taken"));
    return wrap;
  }
  function names(list) { return list.length ? list.join(", ") : "-"; }
  function countCards(n) { return n + (n === 1 ? " card" : " cards"); }
  function player(view, p) {
    const info = view.players[p];
    const box = el("div", {class: "player" + (view.decider === p ? " acting" : ""), id: "player-" + p});
    box.style.borderColor = data.seatColors[p];
    const stats = el("div", {class: "stats"});
    const title = el("div", {}, data.seatNames[p] + (view.decider === p ? " ▶ deciding" : ""));
    title.style.color = data.seatColors[p];
    title.style.fontWeight = "600";
    stats.appendChild(title);
    stats.appendChild(el("div", {id: "p" + p + "-crystals"}, "Crystals " + info.crystals));
    stats.appendChild(el("div", {id: "p" + p + "-score"}, (view.over ? "Final score " : "Score now ") + info.score));
    const reserve = el("div", {id: "p" + p + "-reserve"}, "Reserve ");
    reserve.appendChild(tokens(info.reserve, true));
    reserve.appendChild(el("span", {class: "hidden"}, " " + info.reserve.reduce((a, b) => a + b, 0) + "/" + info.reserve_limit));
    stats.appendChild(reserve);
    const gauge = el("div", {class: "gauge", id: "p" + p + "-gauge"}, "Gauge " + info.gauge + " (" + info.in_play.length + " in play) ");
    const cells = el("div");
    for (let k = 0; k < data.gaugeMax; k++) {
      const cell = el("span");
      if (k < info.gauge) cell.style.background = data.seatColors[p];
      cells.appendChild(cell);
    }
    gauge.appendChild(cells);
    stats.appendChild(gauge);
    stats.appendChild(el("div", {id: "p" + p + "-bonuses"}, "Bonuses used " + info.bonuses_used + "/" + data.maxBonuses));
    const library = info.library_sizes[0] + info.library_sizes[1];
    stats.appendChild(el("div", {id: "p" + p + "-hand-size"}, "Hand " + countCards(info.hand_size) + ", library " +
      info.library_sizes[0] + " + " + info.library_sizes[1] + " (years 2, 3)"));
    if (info.turn !== null) stats.appendChild(el("div", {id: "p" + p + "-turn"}, info.turn));
    box.appendChild(stats);
    const right = el("div");
    const cards = el("div", {class: "cards", id: "p" + p + "-in-play"});
    if (!info.in_play.length) cards.appendChild(el("span", {class: "hidden"}, "No cards in play"));
    for (const c of info.in_play) {
      const card = el("div", {class: "card" + (c.item ? " item" : "") + (c.tapped ? " tapped" : "")}, c.name);
      const small = el("small", {}, c.tapped ? "tapped " : (c.item ? "item " : "familiar "));
      if (c.stored) small.appendChild(tokens(c.stored, false));
      card.appendChild(small);
      cards.appendChild(card);
    }
    right.appendChild(cards);
    const lines = el("div", {class: "names", id: "p" + p + "-cards"});
    if (info.hand !== null) {
      lines.appendChild(el("div", {}, "Hand: " + names(info.hand)));
      if (info.pack.length) lines.appendChild(el("div", {}, "Draft pack: " + names(info.pack)));
      else if (library) lines.appendChild(el("div", {}, "Library: year 2: " + names(info.library[0]) + "; year 3: " + names(info.library[1])));
    } else {
      lines.appendChild(el("div", {class: "hidden"}, "Hand: " + countCards(info.hand_size) + " (hidden)"));
      if (info.pack_size) lines.appendChild(el("div", {class: "hidden"}, "Draft pack: " + countCards(info.pack_size) + " (hidden)"));
      else if (library) lines.appendChild(el("div", {class: "hidden"}, "Library: " + info.library_sizes[0] + " + " + info.library_sizes[1] + " cards (hidden)"));
    }
    right.appendChild(lines);
    box.appendChild(right);
    return box;
  }
  function board(view) {
    const root = el("div");
    const head = el("div", {class: "head"});
    head.appendChild(wheel(view));
    const dice = el("div");
    dice.appendChild(el("div", {}, "Dice rolled (" + view.dice_season + " dice)"));
    const row = el("div", {class: "dice", id: "dice"});
    if (!view.dice.length) row.appendChild(el("span", {class: "hidden"}, "No dice rolled yet this round"));
    for (const d of view.dice) row.appendChild(die(d, view.dice_season));
    dice.appendChild(row);
    head.appendChild(dice);
    const info = el("div", {class: "info"});
    const label = el("span", {class: "label", id: "view-label"}, view.seat === null ? "GOD VIEW: every hand and library shown" : "As seen by player " + view.seat);
    label.style.background = view.seat === null ? "#212126" : data.seatColors[view.seat];
    info.appendChild(label);
    info.appendChild(el("div", {id: "where"}, view.season + ", space " + view.position + " of 12; first player " + view.first_player));
    info.appendChild(el("div", {id: "piles"}, "Draw pile " + view.draw_pile + " cards, discard pile " + view.discard_pile));
    if (view.over) info.appendChild(el("div", {id: "pending"}, "Game over"));
    else {
      info.appendChild(el("div", {id: "pending"}, "Player " + view.decider + " decides: " + view.decision));
      if (view.options !== null) {
        const list = el("ul", {id: "options"});
        for (const o of view.options.slice(0, 8)) list.appendChild(el("li", {}, o));
        if (view.options.length > 8) list.appendChild(el("li", {}, "(+" + (view.options.length - 8) + " more options)"));
        info.appendChild(list);
      }
    }
    head.appendChild(info);
    root.appendChild(head);
    const notes = el("div", {class: "notes", id: "notes"});
    for (const note of view.notes) notes.appendChild(el("div", {}, note));
    root.appendChild(notes);
    const players = el("div", {class: "players"});
    for (let p = 0; p < view.players.length; p++) players.appendChild(player(view, p));
    root.appendChild(players);
    return root;
  }
  let current = 0;
  function show(k) {
    current = Math.max(0, Math.min(last, k));
    const step = steps[current];
    $("slider").value = String(current);
    $("counter").textContent = "Position " + current + " of " + last;
    $("decision").textContent = step.move;
    $("scores").textContent = "Scores: " + step.view.players.map((info, p) => data.seatNames[p] + " " + info.score).join(", ");
    const policy = $("policy");
    policy.replaceChildren();
    $("policy-title").hidden = !step.policy;
    if (step.policy) for (const [label, prob] of step.policy) policy.appendChild(el("li", {}, label + ": " + (100 * prob).toFixed(1) + "%"));
    $("board").replaceChildren(board(step.view));
    const cursor = $("cursor");
    const x = data.chart.left + data.chart.width * current / Math.max(1, last);
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
    $("prev").disabled = current === 0;
    $("first").disabled = current === 0;
    $("next").disabled = current === last;
    $("last").disabled = current === last;
  }
  $("slider").max = String(last);
  $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(current - 1));
  $("next").addEventListener("click", () => show(current + 1));
  $("last").addEventListener("click", () => show(last));
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT") return;
    if (e.key === "ArrowLeft") show(current - 1);
    if (e.key === "ArrowRight") show(current + 1);
  });
  show(0);
})();
