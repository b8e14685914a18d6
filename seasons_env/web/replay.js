// The replay page's script: draws the board of each position from the embedded data with board.js (inlined
// before it) and DOM calls (textContent only: names from a record are never parsed as HTML).
(() => {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const steps = data.steps, last = steps.length - 1;
  const {el, names, cardsCount} = SeasonsBoard;
  const $ = (id) => document.getElementById(id);
  function player(view, p) {
    const info = view.players[p];
    const {box, stats} = SeasonsBoard.playerPanel(view, p, {title: data.seatNames[p], color: data.seatColors[p],
      gaugeMax: data.gaugeMax, maxBonuses: data.maxBonuses});
    const library = info.library_sizes[0] + info.library_sizes[1];
    stats.appendChild(el("div", {id: "p" + p + "-hand-size"}, "Hand " + cardsCount(info.hand_size) + ", library " +
      info.library_sizes[0] + " + " + info.library_sizes[1] + " (years 2, 3)"));
    if (info.turn !== null) stats.appendChild(el("div", {id: "p" + p + "-turn"}, info.turn));
    const right = el("div");
    const card = (c) => el("div", {class: "card" + (c.item ? " item" : "") + (c.tapped ? " tapped" : "")}, c.name);
    right.appendChild(SeasonsBoard.inPlay(info, p, card, "item"));
    const lines = el("div", {class: "names", id: "p" + p + "-cards"});
    if (info.hand !== null) {
      lines.appendChild(el("div", {}, "Hand: " + names(info.hand)));
      if (info.pack.length) lines.appendChild(el("div", {}, "Draft pack: " + names(info.pack)));
      else if (library) lines.appendChild(el("div", {}, "Library: year 2: " + names(info.library[0]) + "; year 3: " + names(info.library[1])));
    } else {
      lines.appendChild(el("div", {class: "hidden-info"}, "Hand: " + cardsCount(info.hand_size) + " (hidden)"));
      if (info.pack_size) lines.appendChild(el("div", {class: "hidden-info"}, "Draft pack: " + cardsCount(info.pack_size) + " (hidden)"));
      else if (library) lines.appendChild(el("div", {class: "hidden-info"}, "Library: " + info.library_sizes[0] + " + " + info.library_sizes[1] + " cards (hidden)"));
    }
    right.appendChild(lines);
    box.appendChild(right);
    return box;
  }
  // The dice are rolled at the start of a round: when the season marker has moved on since (a card, or the end of
  // the game), the caption says so, so that the dice's season never contradicts the wheel's.
  function diceCaption(view) {
    if (view.dice_season === view.season) return "Dice rolled (" + view.dice_season + " dice)";
    if (view.over) return "Dice of the last round (" + view.dice_season + " dice); the season marker has since " +
      "passed the end of year 3, into " + view.season;
    return "Dice rolled this round (" + view.dice_season + " dice, before the season marker moved into " +
      view.season + ")";
  }
  function board(view) {
    const root = el("div");
    const head = el("div", {class: "head"});
    head.appendChild(SeasonsBoard.wheel(view, {width: 200, height: 200}));
    head.appendChild(SeasonsBoard.dice(view, diceCaption(view),
      (d) => SeasonsBoard.die(d, view.dice_season, (owner) => "player " + owner).wrap));
    const info = el("div", {class: "info"});
    const label = el("span", {class: "label", id: "view-label"}, view.seat === null ? "GOD VIEW: every hand and library shown" : "As seen by player " + view.seat);
    label.style.background = view.seat === null ? "#212126" : data.seatColors[view.seat];
    info.appendChild(label);
    const when = view.past_end ? "Game ended after year 3; the marker is in " + view.season : "Year " + view.year + ", " + view.season;
    info.appendChild(el("div", {id: "where"}, when + ", space " + view.position + " of 12; first player " + view.first_player));
    info.appendChild(el("div", {id: "piles"}, "Draw pile " + view.draw_pile + " cards, discard pile " + view.discard_pile));
    if (view.over) info.appendChild(el("div", {id: "pending"}, "Game over"));
    else {
      info.appendChild(el("div", {id: "pending"}, "Player " + view.decider + " decides: " + view.decision_words));
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
