// The page of `seasons play --web`: asks the local server for the seat's state (GET /api/state), draws it with
// board.js (the drawing it shares with the replay page, loaded before this script) and DOM calls (textContent
// only: nothing from the server is parsed as HTML) and sends the chosen action (POST /api/action). Every legal
// option is a control with a data-action attribute: the cards, dice and energy it names, and a numbered list of
// all of them.
(() => {
  "use strict";
  const params = new URLSearchParams(location.search);
  const query = "?token=" + encodeURIComponent(params.get("token") || "");
  // Milliseconds between the other players' moves as they are shown (?pause=0 shows them at once).
  const pause = params.has("pause") ? Math.max(0, Number(params.get("pause")) || 0) : 700;
  const {ENERGIES, ENERGY_COLORS, el, names, cardsCount} = SeasonsBoard;
  const SEAT_COLORS = ["#c44040", "#3a6ec4", "#3c9650", "#965ab4"];
  const GAUGE_MAX = 15, MAX_BONUSES = 3;
  const $ = (id) => document.getElementById(id);

  let state = null;
  let shown = 0;            // log entries already on the page
  let queue = [];           // log entries still to show, one by one
  let draining = false, skipping = false, sending = false;
  let pollTimer = null;
  let selected = 0;         // the option the arrow keys point at
  let typed = "", typedTimer = null;

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const playerName = (p) => "player " + p + " (" + (p === state.seat ? "you" : state.players[p]) + ")";

  async function api(method, path, body) {
    const init = {method, cache: "no-store"};
    if (body !== undefined) {
      init.headers = {"Content-Type": "application/json"};
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path + query, init);
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (!response.ok) throw new Error((data && data.error) || response.status + " " + response.statusText);
    return data;
  }

  function setPhase(phase) { document.body.dataset.phase = phase; }
  function showError(message) {
    $("error").hidden = !message;
    $("error").textContent = message || "";
  }

  // ------------------------------------------------------------------ the board
  // The legal options naming each thing on the board, so that the thing itself is a control.
  function controls() {
    const by = {die: new Map(), instance: new Map(), hand: new Map(), pack: new Map()};
    const view = state.view, me = view.players[state.seat];
    for (const option of state.legal) {
      if ("die" in option) by.die.set(option.die, option);
      else if ("instance" in option && !by.instance.has(option.instance)) by.instance.set(option.instance, option);
      else if (option.group === "SUMMON" || (option.group === "CHOOSE_CARD" && me.hand.includes(option.card))) {
        if (!by.hand.has(option.card)) by.hand.set(option.card, option);
      } else if (option.group === "CHOOSE_CARD" && me.pack.includes(option.card)) by.pack.set(option.card, option);
    }
    return by;
  }
  function makeChoice(node, option) {
    node.classList.add("choice");
    node.dataset.action = String(option.action);
    node.title = option.label;
    node.tabIndex = 0;
    node.setAttribute("role", "button");
    node.addEventListener("click", () => choose(option.action));
    node.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); choose(option.action); } });
  }
  function die(d, season, by) {
    const {wrap, face} = SeasonsBoard.die(d, season, (owner) => "taken by player " + owner);
    if (by.die.has(d.die)) makeChoice(face, by.die.get(d.die));
    return wrap;
  }
  function card(name, extra, option) {
    const node = el("div", {class: "card " + (extra || "")}, name);
    node.dataset.card = name;
    if (state.cards[name]) node.title = state.cards[name];
    if (option) makeChoice(node, option);
    return node;
  }
  function playerPanel(view, p, by) {
    const info = view.players[p];
    const title = "Player " + p + (p === state.seat ? " (you)" : " (" + state.players[p] + ")") +
      (view.first_player === p ? " · first player" : "");
    const {box, stats} = SeasonsBoard.playerPanel(view, p, {title, color: SEAT_COLORS[p], gaugeMax: GAUGE_MAX, maxBonuses: MAX_BONUSES});
    const library = info.library_sizes[0] + info.library_sizes[1];
    const pack = info.pack_size ? ", draft pack " + info.pack_size : "";
    stats.appendChild(el("div", {id: "p" + p + "-hand-size"}, "Hand " + cardsCount(info.hand_size) + ", library " + library + pack));
    const zone = el("div", {class: "zone"});
    const cards = SeasonsBoard.inPlay(info, p, (c) => {
      const node = card(c.name, (c.item ? "item" : "familiar") + (c.tapped ? " tapped" : ""), by.instance.get(c.instance));
      node.dataset.instance = String(c.instance);
      return node;
    }, "magic item");
    zone.appendChild(cards);
    box.appendChild(zone);
    return box;
  }
  function ownCards(view, by) {
    const info = view.players[state.seat];
    const box = el("div", {id: "own"});
    box.appendChild(el("h2", {}, "Your hand"));
    const hand = el("div", {class: "cards", id: "hand"});
    if (!info.hand.length) hand.appendChild(el("span", {class: "hidden-info"}, "No cards in hand"));
    for (const name of info.hand) hand.appendChild(card(name, "", by.hand.get(name)));
    box.appendChild(hand);
    if (info.pack.length) {
      box.appendChild(el("h2", {}, "Draft pack"));
      const pack = el("div", {class: "cards", id: "pack"});
      for (const name of info.pack) pack.appendChild(card(name, "", by.pack.get(name)));
      box.appendChild(pack);
    }
    const [year2, year3] = info.library;
    box.appendChild(el("div", {class: "names", id: "library"}, "Library: year 2: " + names(year2) + "; year 3: " + names(year3)));
    return box;
  }
  function drawBoard() {
    const view = state.view, by = controls();
    const root = el("div");
    const head = el("div", {class: "head"});
    const where = "Year " + view.year + ", " + view.season + ", space " + view.position + " of 12";
    head.appendChild(SeasonsBoard.wheel(view, {role: "img", "aria-label": where}));
    head.appendChild(SeasonsBoard.dice(view, "Season dice (" + view.dice_season + ")", (d) => die(d, view.dice_season, by)));
    const info = el("div", {class: "info"});
    info.appendChild(el("div", {id: "where"}, where));
    info.appendChild(el("div", {id: "piles"}, "Draw pile " + view.draw_pile + ", discard pile " + view.discard_pile));
    head.appendChild(info);
    root.appendChild(head);
    root.appendChild(ownCards(view, by));
    const players = el("div", {class: "players", id: "players"});
    for (let p = 0; p < view.players.length; p++) players.appendChild(playerPanel(view, p, by));
    root.appendChild(players);
    $("board").replaceChildren(root);
  }

  // ------------------------------------------------------------------ the decision
  function drawDecision() {
    const mine = state.legal.length > 0 && !state.over;
    $("decision").hidden = state.over;
    $("prompt").textContent = mine ? state.prompt : (state.error ? "The game stopped." : state.prompt);
    $("help").textContent = mine ? state.help : "";
    const choices = $("choices"), options = $("options");
    choices.replaceChildren();
    options.replaceChildren();
    if (mine) {
      const view = state.view, me = view.players[state.seat];
      for (const option of state.legal) {
        if ("energy" in option) {
          const b = el("button", {class: "energy"}, option.label);
          const energy = ENERGIES[option.energy];
          b.style.background = ENERGY_COLORS[energy];
          b.style.color = energy === "air" ? "#222" : "#fff";
          makeChoice(b, option);
          choices.appendChild(b);
        } else if (option.group === "CHOOSE_CARD" && !me.hand.includes(option.card) && !me.pack.includes(option.card)) {
          choices.appendChild(card(option.card, "", option));  // a drawn card, not yet in a zone
        }
      }
      state.legal.forEach((option, k) => {
        const b = el("button", {"data-index": String(k)});
        b.appendChild(el("span", {class: "num"}, String(k + 1) + "."));
        b.appendChild(document.createTextNode(option.label));
        makeChoice(b, option);
        b.removeAttribute("role");
        const item = el("li");
        item.appendChild(b);
        options.appendChild(item);
      });
      selected = Math.min(selected, state.legal.length - 1);
      markSelected();
    }
    $("keys").hidden = !mine;
  }
  function markSelected() {
    document.querySelectorAll("#options button").forEach((b, k) => b.classList.toggle("selected", k === selected));
  }
  function drawOver() {
    $("game-over").hidden = !state.over;
    if (!state.over) return;
    const best = state.winners.map((p) => playerName(p));
    $("winner").textContent = state.winners.includes(state.seat)
      ? (state.winners.length > 1 ? "Shared win: " + best.join(", ") : "You win!")
      : "Winner: " + best.join(", ");
    const list = $("final-scores");
    list.replaceChildren();
    state.scores.forEach((score, p) => {
      list.appendChild(el("li", {"data-player": String(p), "data-score": String(score)}, playerName(p) + ": " + score));
    });
    $("replay-link").href = "/replay" + query;
    $("replay-all-link").href = "/replay" + query + "&view=all";
  }
  function drawStatus() {
    const meta = state.view.num_players + " players, " + state.view.level + ". You are player " + state.seat + ".";
    $("meta").textContent = meta;
    let status;
    if (state.error) status = state.error;
    else if (state.over) status = "Game over.";
    else if (state.thinking !== null) status = "Player " + state.thinking + " (" + state.players[state.thinking] + ") is thinking";
    else if (state.pass_to !== null) status = "Player " + state.pass_to + "'s move.";
    else if (state.legal.length) status = "Your move.";
    else status = "Player " + state.current_player + " (" + state.players[state.current_player] + ") to move";
    $("status").textContent = status;
    document.body.dataset.moves = String(state.moves);
  }
  function logLine(entry, fresh) {
    const mine = entry.player === state.seat;
    const item = el("li", {class: (mine ? "mine" : "") + (fresh ? " fresh" : "")}, playerName(entry.player) + ": " + entry.label);
    const log = $("log");
    log.appendChild(item);
    if (log.children.length > 400) log.removeChild(log.firstChild);
    log.scrollTop = log.scrollHeight;
    if (fresh) setTimeout(() => item.classList.remove("fresh"), 1500);
  }

  // Shows the waiting log entries one at a time (the other players' with a pause), then the decision.
  async function drain() {
    if (draining) return;
    draining = true;
    while (queue.length) {
      const entry = queue.shift();
      logLine(entry, true);
      if (entry.player !== state.seat && pause > 0 && !skipping && queue.length) {
        $("skip").hidden = false;
        await sleep(pause);
      }
    }
    $("skip").hidden = true;
    skipping = false;
    draining = false;
    settle();
  }
  function settle() {
    if (draining || sending) return;
    $("pass").hidden = state.pass_to === null;
    if (state.pass_to !== null) {  // hot-seat: nothing of this seat stays on the screen for the next person
      $("board").replaceChildren();
      $("log").replaceChildren();
      $("pass-prompt").textContent = "Pass the screen to player " + state.pass_to + ".";
      $("pass-button").textContent = "I am player " + state.pass_to + ": show my view";
      drawStatus();
      setPhase("pass");
      return;
    }
    drawBoard();
    drawDecision();
    drawOver();
    drawStatus();
    if (state.over) setPhase("over");
    else if (state.error) setPhase("error");
    else if (state.legal.length) setPhase("ready");
    else { setPhase("waiting"); schedulePoll(); }
  }
  function update(next, first) {
    state = next;
    if (first || next.log.length < shown) { shown = 0; $("log").replaceChildren(); queue = []; }  // a new game, a new seat
    const fresh = next.log.slice(shown);
    shown = next.log.length;
    if (first) { fresh.forEach((entry) => logLine(entry, false)); }
    else queue.push(...fresh);
    drawStatus();
    if (queue.length) { setPhase("waiting"); drain(); }
    else settle();
  }
  function schedulePoll() {
    if (pollTimer !== null) return;
    pollTimer = setTimeout(async () => {
      pollTimer = null;
      try { update(await api("GET", "/api/state")); showError(""); }
      catch (e) { showError("Cannot reach the server: " + e.message); schedulePoll(); }
    }, 300);
  }
  async function choose(action) {
    if (sending || draining || document.body.dataset.phase !== "ready") return;
    sending = true;
    setPhase("waiting");
    document.querySelectorAll(".choice").forEach((node) => node.setAttribute("aria-disabled", "true"));
    document.querySelectorAll("#options button").forEach((b) => { b.disabled = true; });
    $("status").textContent = "Playing your move";
    // While the agents answer, ask who is thinking (and show the moves already made).
    const watch = setInterval(async () => {
      try {
        const now = await api("GET", "/api/state");
        if (sending && now.thinking !== null) $("status").textContent = "Player " + now.thinking + " (" + now.players[now.thinking] + ") is thinking";
      } catch (e) { /* the answer to the move will say */ }
    }, 500);
    let next = null;
    try {
      // The move number this action answers: a repeated request (or another tab that played first) is refused.
      next = await api("POST", "/api/action", {action, move: state.move});
      showError("");
    } catch (e) {
      showError(e.message);
    } finally {
      clearInterval(watch);
      sending = false;
    }
    if (next === null) {
      try { next = await api("GET", "/api/state"); } catch (e) { showError("Cannot reach the server: " + e.message); return; }
    }
    selected = 0;
    update(next);
  }

  // ------------------------------------------------------------------ keys
  function chooseNumber(text) {
    const k = Number(text);
    if (k >= 1 && k <= state.legal.length) choose(state.legal[k - 1].action);
  }
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === " " && draining) { skipping = true; e.preventDefault(); return; }
    if (!state || document.body.dataset.phase !== "ready") return;
    const n = state.legal.length;
    if (/^[0-9]$/.test(e.key)) {
      e.preventDefault();
      typed += e.key;
      clearTimeout(typedTimer);
      // Choose at once when no longer number could follow; else wait a moment for a second digit.
      if (Number(typed + "0") > n) { const t = typed; typed = ""; chooseNumber(t); }
      else typedTimer = setTimeout(() => { const t = typed; typed = ""; chooseNumber(t); }, 600);
    } else if (e.key === "ArrowDown" || e.key === "ArrowRight") {
      e.preventDefault(); selected = (selected + 1) % n; markSelected(); scrollSelected();
    } else if (e.key === "ArrowUp" || e.key === "ArrowLeft") {
      e.preventDefault(); selected = (selected - 1 + n) % n; markSelected(); scrollSelected();
    } else if (e.key === "Enter" && !(e.target instanceof HTMLButtonElement) && !e.target.classList.contains("choice")) {
      e.preventDefault(); choose(state.legal[selected].action);
    }
  });
  function scrollSelected() {
    const b = document.querySelector("#options button.selected");
    if (b) b.scrollIntoView({block: "nearest"});
  }
  $("skip").addEventListener("click", () => { skipping = true; });
  $("pass-button").addEventListener("click", async () => {
    if (document.body.dataset.phase !== "pass") return;
    setPhase("waiting");
    try { update(await api("POST", "/api/pass", {}), true); showError(""); }
    catch (e) { showError(e.message); settle(); }
  });
  $("new-game").addEventListener("click", async () => {
    try { update(await api("POST", "/api/new", {}), true); showError(""); }
    catch (e) { showError(e.message); }
  });

  (async () => {
    try { update(await api("GET", "/api/state"), true); }
    catch (e) { showError(e.message); setPhase("error"); $("status").textContent = "Cannot load the game."; }
  })();
})();
