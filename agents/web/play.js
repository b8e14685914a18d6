// The page of `seasons play --web`: asks the local server for the seat's state (GET /api/state), draws it with
// board.js (the drawing it shares with the replay page, loaded before this script) and DOM calls (textContent
// only: nothing from the server is parsed as HTML) and sends the chosen action (POST /api/action).
// Reading and choosing are separate controls: a click or tap on a card (anywhere but its choose button) opens
// its text; every legal option is a control with a data-action attribute (a card's "Choose"/"Summon"/"Activate"
// button, a die, an energy button, and the numbered list of all of them).
(() => {
  "use strict";
  const params = new URLSearchParams(location.search);
  // Milliseconds between the other players' moves as they are shown (?pause=0 shows them at once).
  const pause = params.has("pause") ? Math.max(0, Number(params.get("pause")) || 0) : 700;
  const {ENERGIES, ENERGY_COLORS, el, cardsCount} = SeasonsBoard;
  const SEAT_COLORS = ["#c44040", "#3a6ec4", "#3c9650", "#965ab4"];
  const GAUGE_MAX = 15, MAX_BONUSES = 3;
  const VERBS = {
    SUMMON: "Summon", ACTIVATE: "Activate", CHOOSE_CARD: "Choose", CHOOSE_IN_PLAY: "Choose", KEEP_CARD: "Keep",
    DISCARD_CARD: "Discard", ORB_PLAY: "Put into play", ORB_LEAVE: "Leave it",
  };
  const $ = (id) => document.getElementById(id);

  let state = null;
  let shown = 0;            // log entries already on the page
  let queue = [];           // log entries still to show, one by one
  let draining = false, skipping = false, sending = false;
  let pollTimer = null;
  let selected = 0;         // the option the arrow keys point at
  let typed = "", typedTimer = null;
  let before = null;        // the board at the seat's last decision: what changed since is highlighted
  let openCardName = null;  // the card whose text is open

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const playerName = (p) => "player " + p + " (" + (p === state.seat ? "you" : state.players[p]) + ")";
  const signed = (n) => (n > 0 ? "+" : "−") + Math.abs(n);

  // ------------------------------------------------------------------ the server
  // Every request goes through here: the run's token in the address, JSON in and out.
  const query = "?token=" + encodeURIComponent(params.get("token") || "");
  async function api(method, path, body) {
    const init = {method, cache: "no-store", credentials: "same-origin"};
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
  // The move number the choice was made at, when the server tells it (a stale choice is then refused).
  function postAction(action) {
    const body = {action};
    if (state && state.move !== undefined) body.move = state.move;
    return api("POST", "/api/action", body);
  }

  function setPhase(phase) { document.body.dataset.phase = phase; }
  function showError(message) {
    $("error").hidden = !message;
    $("error").textContent = message || "";
  }

  // ------------------------------------------------------------------ words with energy tokens
  // A label with each "N water" (earth, fire, air) drawn as the coloured token with its count, then the word: the
  // notation of the dice and the legend.
  const ENERGY_RE = /(\d+) (water|earth|fire|air)\b/g;
  function labelNode(text) {
    const box = el("span", {class: "label"});
    let last = 0;
    for (const match of text.matchAll(ENERGY_RE)) {
      box.appendChild(document.createTextNode(text.slice(last, match.index)));
      const counts = [0, 0, 0, 0];
      counts[ENERGIES.indexOf(match[2])] = Number(match[1]);
      box.appendChild(SeasonsBoard.energyWords(counts));
      last = match.index + match[0].length;
    }
    box.appendChild(document.createTextNode(text.slice(last)));
    return box;
  }

  // ------------------------------------------------------------------ card text
  function cardLine(name) {
    const c = state.cards[name];
    return c ? name + " (" + c.type + ", cost " + c.cost + ", " + c.prestige + " prestige): " + c.effect : name;
  }
  function optionsNaming(name) { return state.legal.filter((option) => option.card === name); }
  function openCard(name) {
    const c = state.cards[name];
    openCardName = name;
    $("card-title").textContent = name;
    $("card-type").textContent = c ? c.type : "";
    $("card-cost").textContent = c ? c.cost : "";
    $("card-prestige").textContent = c ? String(c.prestige) : "";
    $("card-effect").textContent = c ? c.effect : "";
    fillCardChoices();
    const dialog = $("card-text");
    if (!dialog.open) dialog.showModal();
    $("card-close").focus();
  }
  // The options naming the open card, as explicit buttons under its text.
  function fillCardChoices() {
    const box = $("card-choices");
    box.replaceChildren();
    if (openCardName === null || document.body.dataset.phase !== "ready") return;
    for (const option of optionsNaming(openCardName)) {
      const b = el("button", {type: "button", "data-action": String(option.action)});
      b.appendChild(labelNode(option.label));
      b.addEventListener("click", () => { closeCard(); choose(option.action); });
      box.appendChild(b);
    }
  }
  function closeCard() {
    openCardName = null;
    $("card-choices").replaceChildren();
    if ($("card-text").open) $("card-text").close();
  }
  function readButton(name) {
    const b = el("button", {type: "button", class: "read", "data-card": name, "aria-label": "Read " + name, title: "Read " + name}, "i");
    b.addEventListener("click", (e) => { e.stopPropagation(); openCard(name); });
    return b;
  }

  // ------------------------------------------------------------------ the board
  // The legal options naming each thing on the board, so that the thing itself carries the control.
  function controls() {
    const by = {die: new Map(), instance: new Map(), hand: new Map(), pack: new Map()};
    const me = state.view.players[state.seat];
    const add = (map, key, option) => { if (!map.has(key)) map.set(key, []); map.get(key).push(option); };
    for (const option of state.legal) {
      if ("die" in option) add(by.die, option.die, option);
      else if ("instance" in option) add(by.instance, option.instance, option);
      else if (option.group === "SUMMON" || (option.group === "CHOOSE_CARD" && me.hand.includes(option.card))) add(by.hand, option.card, option);
      else if (option.group === "CHOOSE_CARD" && me.pack.includes(option.card)) add(by.pack, option.card, option);
    }
    return by;
  }
  function makeChoice(node, option) {
    node.classList.add("choice");
    node.dataset.action = String(option.action);
    node.title = option.label;
    node.addEventListener("click", (e) => { e.stopPropagation(); choose(option.action); });
  }
  function die(d, season, by) {
    const {wrap, face} = SeasonsBoard.die(d, season, (owner) => "taken by player " + owner);
    const options = by.die.get(d.die);
    if (options) {
      makeChoice(face, options[0]);
      face.tabIndex = 0;
      face.setAttribute("role", "button");
      face.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); choose(options[0].action); } });
    }
    // Taken since (a die of a new round that nobody took is not a change).
    if (before && d.owner >= 0 && !before.view.dice.some((old) => old.die === d.die && old.owner === d.owner)) wrap.classList.add("changed");
    return wrap;
  }
  // A card: its name opens its text (so does a click or tap anywhere on it); each option naming it is a button.
  function card(name, extra, options) {
    const node = el("div", {class: "card " + (extra || ""), "data-card": name, title: cardLine(name)});
    const title = el("button", {type: "button", class: "card-name"}, name);
    node.appendChild(title);
    node.addEventListener("click", () => openCard(name));
    for (const option of options || []) {
      const b = el("button", {type: "button", class: "pick"}, VERBS[option.group] || "Choose");
      makeChoice(b, option);
      node.appendChild(b);
    }
    return node;
  }
  function cardRow(id, names, by) {
    const row = el("div", {class: "cards", id});
    if (!names.length) row.appendChild(el("span", {class: "hidden-info"}, "none"));
    for (const name of names) row.appendChild(card(name, "", by ? by.get(name) : undefined));
    return row;
  }
  // A figure with what changed since the seat's last decision.
  function mark(node, delta, text) {
    if (!delta) return;
    node.classList.add("changed");
    // Beside the figure's words, before a drawing under them (the gauge's cells).
    node.insertBefore(el("strong", {class: "delta"}, " " + (text || signed(delta))), node.querySelector(":scope > div"));
  }
  function playerPanel(view, p, by) {
    const info = view.players[p];
    const title = "Player " + p + (p === state.seat ? " (you)" : " (" + state.players[p] + ")") +
      (view.first_player === p ? " · first player" : "");
    const {box, stats} = SeasonsBoard.playerPanel(view, p, {title, color: SEAT_COLORS[p], gaugeMax: GAUGE_MAX, maxBonuses: MAX_BONUSES});
    const parts = state.score_parts[p];
    const score = stats.querySelector("#p" + p + "-score");
    const counts = el("div", {class: "score-parts", id: "p" + p + "-score-parts"},
      "= " + parts.crystals + " crystals + " + parts.prestige + " prestige of cards in play − " + parts.bonus_penalty +
      " for bonuses − " + parts.hand_penalty + " for " + cardsCount(parts.cards_in_hand) + " in hand" +
      (view.over ? "" : " (if the game ended now, before end-of-game cards)"));
    score.after(counts);
    const library = info.library_sizes[0] + info.library_sizes[1];
    const pack = info.pack_size ? ", draft pack " + info.pack_size : "";
    const sizes = el("div", {id: "p" + p + "-hand-size"}, "Hand " + cardsCount(info.hand_size) + ", library " + library + pack);
    stats.appendChild(sizes);
    const old = before ? before.view.players[p] : null;
    if (old) {
      mark(stats.querySelector("#p" + p + "-crystals"), info.crystals - old.crystals);
      mark(score, info.score - old.score);
      const change = info.reserve.map((n, i) => n - old.reserve[i]);
      mark(stats.querySelector("#p" + p + "-reserve"), change.some((n) => n),
        change.map((n, i) => (n ? signed(n) + " " + ENERGIES[i] : "")).filter(Boolean).join(", "));
      mark(stats.querySelector("#p" + p + "-gauge"), info.gauge - old.gauge);
      mark(stats.querySelector("#p" + p + "-bonuses"), info.bonuses_used - old.bonuses_used);
      mark(sizes, info.hand_size - old.hand_size, signed(info.hand_size - old.hand_size) + " in hand");
    }
    const was = new Map((old ? old.in_play : []).map((c) => [c.instance, c]));
    const zone = el("div", {class: "zone"});
    const cards = SeasonsBoard.inPlay(info, p, (c) => {
      const node = card(c.name, (c.item ? "item" : "familiar") + (c.tapped ? " tapped" : ""), by.instance.get(c.instance));
      node.dataset.instance = String(c.instance);
      const prior = was.get(c.instance);
      if (old && (!prior || prior.tapped !== c.tapped || String(prior.stored) !== String(c.stored))) {
        node.classList.add("changed");
        if (!prior) node.classList.add("new");
      }
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
    box.appendChild(cardRow("hand", info.hand, by.hand));
    if (info.pack.length) {
      box.appendChild(el("h2", {}, "Draft pack"));
      box.appendChild(cardRow("pack", info.pack, by.pack));
    }
    const [year2, year3] = info.library;
    if (year2.length || year3.length) {
      box.appendChild(el("h2", {}, "Library"));
      const library = el("div", {id: "library", class: "library"});
      library.appendChild(el("div", {class: "names"}, "Year 2"));
      library.appendChild(cardRow("library-2", year2));
      library.appendChild(el("div", {class: "names"}, "Year 3"));
      library.appendChild(cardRow("library-3", year3));
      box.appendChild(library);
    }
    return box;
  }
  function drawBoard() {
    const view = state.view, by = controls();
    const root = el("div");
    const head = el("div", {class: "head"});
    // The words say what the wheel shows: past the last space, the game's end.
    const where = view.past_end ? "Year 3 is over: the game ends" : "Year " + view.year + ", " + view.season + ", space " + view.position + " of 12";
    head.appendChild(SeasonsBoard.wheel(view, {role: "img", "aria-label": where}));
    const caption = !view.dice.length ? "Season dice"
      : view.dice_season === view.season && !view.past_end ? "Season dice (" + view.season + ")"
      : "Season dice rolled in " + view.dice_season + " (the marker has moved on)";
    head.appendChild(SeasonsBoard.dice(view, caption, (d) => die(d, view.dice_season, by)));
    const info = el("div", {class: "info"});
    const whereNode = el("div", {id: "where"}, where);
    if (before && before.view.position !== view.position) mark(whereNode, true, "(was space " + before.view.position + ")");
    info.appendChild(whereNode);
    info.appendChild(el("div", {id: "piles"}, "Draw pile " + view.draw_pile + ", discard pile " + view.discard_pile));
    head.appendChild(info);
    root.appendChild(head);
    root.appendChild(ownCards(view, by));
    const players = el("div", {class: "players", id: "players"});
    for (let p = 0; p < view.players.length; p++) players.appendChild(playerPanel(view, p, by));
    root.appendChild(players);
    $("board").replaceChildren(root);
    $("changes-note").hidden = !before || !document.querySelector("#board .changed");
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
      const me = state.view.players[state.seat];
      const drawn = new Map();
      for (const option of state.legal) {
        if ("energy" in option) {
          const b = el("button", {type: "button", class: "energy"});
          b.appendChild(labelNode(option.label));
          const energy = ENERGIES[option.energy];
          b.style.borderColor = ENERGY_COLORS[energy];
          makeChoice(b, option);
          choices.appendChild(b);
        } else if (option.group === "CHOOSE_CARD" && !me.hand.includes(option.card) && !me.pack.includes(option.card)) {
          if (!drawn.has(option.card)) drawn.set(option.card, []);
          drawn.get(option.card).push(option);  // a drawn card, not yet in a zone
        }
      }
      // The cards the decision looks at (a drawn card to keep or discard, the orb's card) with the options naming them.
      for (const name of state.decision_cards) {
        if (!drawn.has(name)) drawn.set(name, optionsNaming(name));
      }
      for (const [name, named] of drawn) choices.appendChild(card(name, "", named));
      state.legal.forEach((option, k) => {
        const b = el("button", {type: "button", "data-index": String(k)});
        b.appendChild(el("span", {class: "num"}, String(k + 1) + "."));
        b.appendChild(labelNode(option.label));
        makeChoice(b, option);
        const item = el("li");
        item.appendChild(b);
        if (option.card) item.appendChild(readButton(option.card));
        options.appendChild(item);
      });
      selected = Math.min(selected, state.legal.length - 1);
      markSelected();
    }
    $("keys").hidden = !mine;
  }
  function optionButtons() { return document.querySelectorAll("#options button[data-action]"); }
  function markSelected() { optionButtons().forEach((b, k) => b.classList.toggle("selected", k === selected)); }
  function drawOver() {
    $("game-over").hidden = !state.over;
    if (!state.over) return;
    const best = state.winners.map((p) => playerName(p));
    $("winner").textContent = state.winners.includes(state.seat)
      ? (state.winners.length > 1 ? "Shared win: " + best.join(", ") : "You win!")
      : "Winner: " + best.join(", ");
    const table = $("final-scores");
    table.replaceChildren();
    state.scores.forEach((score, p) => {
      const parts = state.score_parts[p];
      const row = el("tr", {
        "data-player": String(p), "data-score": String(score), "data-crystals": String(parts.crystals),
        "data-prestige": String(parts.prestige), "data-bonus-penalty": String(parts.bonus_penalty),
        "data-hand-penalty": String(parts.hand_penalty),
      });
      row.appendChild(el("th", {scope: "row"}, playerName(p)));
      row.appendChild(el("td", {}, String(parts.crystals)));
      row.appendChild(el("td", {}, "+" + parts.prestige));
      row.appendChild(el("td", {}, parts.bonus_penalty ? "−" + parts.bonus_penalty : "0"));
      const hand = row.appendChild(el("td", {}, parts.hand_penalty ? "−" + parts.hand_penalty : "0"));
      hand.appendChild(el("small", {}, cardsCount(parts.cards_in_hand)));
      row.appendChild(el("td", {class: "total"}, String(score)));
      table.appendChild(row);
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
  function logLine(entry, fresh, index) {
    const mine = entry.player === state.seat;
    const since = before !== null && index >= before.moves;
    const item = el("li", {class: (mine ? "mine" : "") + (fresh ? " fresh" : "") + (since ? " since" : "")});
    item.appendChild(document.createTextNode(playerName(entry.player) + ": "));
    item.appendChild(labelNode(entry.label));
    if (entry.card) item.appendChild(readButton(entry.card));
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
      const [entry, index] = queue.shift();
      logLine(entry, true, index);
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
      closeCard();
      before = null;
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
    if (openCardName !== null) {
      if (state.cards[openCardName]) fillCardChoices();
      else closeCard();
    }
  }
  function update(next, first) {
    state = next;
    if (first || next.log.length < shown) {  // a new game, a new seat
      shown = 0; before = null; $("log").replaceChildren(); queue = [];
    }
    const fresh = next.log.slice(shown).map((entry, k) => [entry, shown + k]);
    shown = next.log.length;
    if (first) fresh.forEach(([entry, index]) => logLine(entry, false, index));
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
    closeCard();
    setPhase("waiting");
    document.querySelectorAll(".choice").forEach((node) => node.setAttribute("aria-disabled", "true"));
    optionButtons().forEach((b) => { b.disabled = true; });
    $("status").textContent = "Playing your move";
    const decidedAt = {view: state.view, moves: state.log.length};
    // While the agents answer, ask who is thinking (and show the moves already made).
    const watch = setInterval(async () => {
      try {
        const now = await api("GET", "/api/state");
        if (sending && now.thinking !== null) $("status").textContent = "Player " + now.thinking + " (" + now.players[now.thinking] + ") is thinking";
      } catch (e) { /* the answer to the move will say */ }
    }, 500);
    let next = null;
    try {
      next = await postAction(action);
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
    if (next.log.length > decidedAt.moves) {  // the move was played: changes count from here
      before = decidedAt;
      document.querySelectorAll("#log li.since").forEach((item) => item.classList.remove("since"));
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
    if (e.altKey || e.ctrlKey || e.metaKey || $("card-text").open) return;
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
  // The legend's tokens in the colours the board draws them with.
  document.querySelectorAll("#legend .tok").forEach((t) => { t.style.background = ENERGY_COLORS[t.classList[1]]; });
  $("card-close").addEventListener("click", closeCard);
  $("card-text").addEventListener("close", () => { openCardName = null; $("card-choices").replaceChildren(); });
  // A tap on the backdrop (outside the text) closes it too.
  $("card-text").addEventListener("click", (e) => { if (e.target === $("card-text")) closeCard(); });
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
