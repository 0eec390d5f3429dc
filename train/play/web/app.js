// The page of `ginrummy serve`: play an agent, step through a replay file.
// Every rule lives on the server: the page shows the choices it is sent and sends the
// terminal's commands ("take", "d 7H", "k 7H", "gin"); the server answers a new view.
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const $ = (id) => document.getElementById(id);
/** The server's secret, sent with every POST: other sites' pages cannot read it. */
const TOKEN = document.querySelector('meta[name="ginrummy-token"]').content;

let gameId = null;
let view = null;       // the current game as the server sent it
let knocking = false;  // the Knock button was pressed: a card click knocks with it
let replay = { game: 1, hand: 1, data: null, step: 0 };

/** Call the API: GET without a body, POST with one (JSON, with the token); an error answer
 *  throws its message, with `pending` (the game's id) while the game's opponent is still thinking. */
async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json", "X-Ginrummy-Token": TOKEN },
    body: JSON.stringify(body),
  };
  const response = await fetch("/api/" + path, options);
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), { pending: data.pending });
  return data;
}

/** `call()`; while the answer is that the opponent is still thinking, the game is asked for
 *  again each second until it answers. */
async function patiently(call) {
  let ask = call;
  for (;;) {
    try {
      return await ask();
    } catch (err) {
      if (!err.pending) throw err;
      $("error").textContent = err.message;
      await new Promise((resolve) => { setTimeout(resolve, 1000); });
      ask = () => api(`games/${err.pending}`);
    }
  }
}

/** Run an API call and show what it answers with `show`, or its error; the body's
 *  data-answers counts the answers shown (tests wait on it). */
async function attempt(call, show) {
  try {
    const data = await call();
    $("error").textContent = "";
    show(data);
  } catch (err) {
    $("error").textContent = err.message;
  }
  document.body.dataset.answers = String(Number(document.body.dataset.answers || 0) + 1);
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A card ("TD") as a face: rank and suit sign; a button when `onClick` is given. */
function card(text, { onClick, small, note } = {}) {
  const node = element(onClick ? "button" : "div", "card" + (small ? " small" : ""));
  if ("DH".includes(text[1])) node.classList.add("red");
  node.dataset.card = text;
  node.append(element("span", "", (text[0] === "T" ? "10" : text[0]) + SUITS[text[1]]));
  if (note !== undefined) node.append(element("span", "left", note));
  if (onClick) {
    node.type = "button";
    node.addEventListener("click", () => onClick(text));
  }
  return node;
}

/** Cards side by side ("-" for none); `options(card)` gives each card's options. */
function cardRow(cards, options) {
  const row = element("span", "cards", cards.length ? undefined : "-");
  cards.forEach((text) => row.append(card(text, options(text))));
  return row;
}

/** A hand in its melds, then its deadwood; `options(card)` gives each card's options. */
function handElement(hand, options = () => ({})) {
  const node = element("div", "hand");
  const group = (cards, className, label) => {
    const box = element("div", "group " + className);
    box.append(cardRow(cards, options), element("span", "label", label));
    node.append(box);
  };
  hand.melds.forEach((meld) => group(meld, "meld", "meld"));
  if (hand.deadwood.length) group(hand.deadwood, "dead", `deadwood ${hand.points}`);
  return node;
}

function cardsText(cards) {
  return cards.length ? cards.join(" ") : "-";
}

function meldsText(melds) {
  return melds.map((meld) => `[${meld.join(" ")}]`).join(" ") || "-";
}

// ----- play -------------------------------------------------------------------------

function statusLine(v) {
  const table = v.table;
  let line = `hand ${v.hand_number} (${v.ruleset}` + (table ? `, knock limit ${table.knock_limit})` : ")");
  if (table) line += table.you_deal ? " | you deal" : ` | ${v.opponent} deals`;
  if (v.episode === "game") line += ` | score: you ${v.scores[0]}, ${v.opponent} ${v.scores[1]} (game to ${v.target})`;
  return line;
}

function hint(table) {
  const c = table.choices;
  if (knocking) return "Click the card to discard face down (deadwood left under each), or Knock again to cancel.";
  if (c.pass) return `The upcard ${table.top} is offered to you: take it or pass.`;
  if (c.draw) return c.take ? `Draw from the stock or take ${table.top}.` : "Draw from the stock.";
  if (c.discard.length) return "Click a card to discard it" + (Object.keys(c.knock).length ? ", or knock." : ".");
  return "";
}

/** A card of the hand: a click discards it, or knocks with it after the Knock button. */
function cardOptions(choices) {
  return (text) => ({
    onClick: (t) => move((knocking ? "k " : "d ") + t),
    note: knocking && text in choices.knock ? String(choices.knock[text]) : undefined,
  });
}

function showTable(v) {
  const table = v.table;
  const c = table.choices;
  const small = () => ({ small: true });
  $("opponent-info").replaceChildren(`${v.opponent} holds from the pile: `, cardRow(table.opp_picked, small),
    " passed over: ", cardRow(table.opp_declined, small));
  $("stock").textContent = String(table.stock);
  $("pile").replaceChildren(table.top ? card(table.top) : element("div", "card empty"),
    element("div", "label", `${table.pile_under} under it`));
  const hand = handElement(table.hand, cardOptions(c));
  hand.id = "hand";
  hand.classList.toggle("playable", c.discard.length > 0);
  hand.querySelectorAll("button.card").forEach((node) => {
    const text = node.dataset.card;
    node.disabled = knocking ? !(text in c.knock) : !c.discard.includes(text);
  });
  $("hand").replaceWith(hand);
  $("note").textContent = table.no_discard ? `you took ${table.no_discard}: discard another card` : "";
  $("take").textContent = table.top ? `Take ${table.top}` : "Take";
  const enabled = { take: c.take, draw: c.draw, pass: c.pass, knock: Object.keys(c.knock).length > 0,
    gin: c.gin, "big-gin": c.big_gin };
  Object.entries(enabled).forEach(([id, on]) => { $(id).disabled = !on; });
  $("knock").classList.toggle("on", knocking);
  $("hint").textContent = hint(table);
}

/** The end of a hand (play and replay): both hands, what was shown and laid off, the score. */
function handEndElement(end) {
  const node = element("div", "hand-end");
  end.hands.forEach((hand) => {
    const seat = element("div", "seat");
    seat.append(element("h3", "", hand.name), handElement(hand, () => ({ small: true })));
    node.append(seat);
  });
  const r = end.result;
  if (r.knocker) {
    const defender = end.hands.map((h) => h.name).find((name) => name !== r.knocker);
    const gin = r.outcome === "gin" || r.outcome === "big_gin";
    const how = (gin ? "went " + r.outcome.replace("_", " ") : "knocked") +
      (r.knock_discard ? `, discarding ${r.knock_discard} face down` : "");
    node.append(element("p", "", `${r.knocker} (${how}): ${meldsText(r.knocker_melds)},` +
      ` deadwood ${cardsText(r.knocker_deadwood_cards)} = ${r.knocker_deadwood}`));
    node.append(element("p", "", `${defender}: ${meldsText(r.defender_melds)}, laid off ${cardsText(r.layoffs)},` +
      ` deadwood ${cardsText(r.defender_deadwood_cards)} = ${r.defender_deadwood}`));
  }
  node.append(element("p", "score", end.score));
  return node;
}

function showGame(v) {
  view = v;
  knocking = false;
  $("status").textContent = statusLine(v);
  $("news").replaceChildren(...v.news.map((line) => element("li", "", line)));
  $("board").hidden = v.table === null;
  $("hand-end").hidden = v.hand_end === null;
  if (v.table) showTable(v);
  if (v.hand_end) {
    $("summary").replaceChildren(handEndElement(v.hand_end));
    $("game-end").textContent = v.game_end || "";
    $("next").hidden = v.over;
  }
  document.body.dataset.over = v.over ? "1" : "0";
}

function move(command) {
  attempt(() => patiently(() => api(`games/${gameId}/move`, { command })), showGame);
}

function newGame(options) {
  attempt(() => patiently(() => api("games", options)), (v) => { gameId = v.id; showGame(v); });
}

// ----- replay -----------------------------------------------------------------------

function showStep() {
  const steps = replay.data.steps;
  const step = steps[replay.step];
  $("step").textContent = `step ${replay.step + 1} / ${steps.length}`;
  $("move").textContent = step.text;
  const seats = step.hands.map((hand, seat) => {
    const node = element("div", "seat" + (step.to_act === replay.data.names[seat] ? " to-act" : ""));
    node.append(element("h3", "", replay.data.names[seat]), handElement(hand));
    return node;
  });
  const piles = element("div", "piles");
  const pile = element("div");
  pile.append(element("div", "label", "discard pile"), step.top ? card(step.top) : element("div", "card empty"));
  const stock = element("div");
  stock.append(element("div", "label", "stock"), element("div", "card back", String(step.stock)));
  piles.append(stock, pile);
  $("replay-table").replaceChildren(seats[0], piles, seats[1]);
  const end = [];
  if (step.hand_end) {
    end.push(handEndElement(step.hand_end));
    const [a, b] = replay.data.names;
    end.push(element("p", "score", `running score: ${a} ${replay.data.scores[0]} - ${b} ${replay.data.scores[1]}`));
    if (replay.data.game_end) end.push(element("pre", "", replay.data.game_end));
  }
  $("replay-end").replaceChildren(...end);
  $("back").disabled = replay.step === 0;
  $("forward").disabled = replay.step === steps.length - 1;
}

function loadHand() {
  attempt(() => api(`replay/${replay.game}/${replay.hand}`), (data) => {
    replay.data = data;
    replay.step = 0;
    showStep();
  });
}

function options(select, values, labels) {
  select.replaceChildren(...values.map((value, i) => {
    const option = element("option", "", labels ? labels[i] : String(value));
    option.value = String(value);
    return option;
  }));
}

function pickGame(games) {
  replay.game = Number($("replay-game").value);
  replay.hand = 1;
  const hands = games[replay.game - 1].hands;
  options($("replay-hand"), Array.from({ length: hands }, (_, i) => i + 1));
  loadHand();
}

function stepBy(delta) {
  const last = replay.data ? replay.data.steps.length - 1 : 0;
  const next = Math.min(Math.max(replay.step + delta, 0), last);
  if (replay.data && next !== replay.step) {
    replay.step = next;
    showStep();
  }
}

function showTab(name) {
  $("play").hidden = name !== "play";
  $("replay").hidden = name !== "replay";
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replay").classList.toggle("active", name === "replay");
}

// ----- start ------------------------------------------------------------------------

function setUp(setup) {
  options($("opponent"), setup.opponents);
  $("opponent").value = setup.defaults.opponent;
  options($("ruleset"), setup.rulesets);
  $("ruleset").value = setup.defaults.ruleset;
  options($("episode"), setup.episodes, setup.episodes.map((e) => (e === "game" ? "a game" : "one hand")));
  $("episode").value = setup.defaults.episode;
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    newGame({ opponent: $("opponent").value, ruleset: $("ruleset").value, episode: $("episode").value });
  });
  const commands = { take: "take", draw: "draw", pass: "pass", gin: "gin", "big-gin": "big gin" };
  Object.entries(commands).forEach(([id, command]) => $(id).addEventListener("click", () => move(command)));
  $("knock").addEventListener("click", () => { knocking = !knocking; showTable(view); });
  $("next").addEventListener("click", () => attempt(() => patiently(() => api(`games/${gameId}/next`, {})),
    showGame));
  $("tab-play").addEventListener("click", () => showTab("play"));
  if (setup.replay) {
    const games = setup.replay.games;
    $("tab-replay").disabled = false;
    $("tab-replay").title = setup.replay.file;
    $("tab-replay").addEventListener("click", () => showTab("replay"));
    $("replay-file").textContent = setup.replay.file;
    options($("replay-game"), games.map((_, i) => i + 1), games.map((g, i) => `${i + 1}: ${g.players.join(" vs ")}`));
    $("replay-game").addEventListener("change", () => pickGame(games));
    $("replay-hand").addEventListener("change", () => { replay.hand = Number($("replay-hand").value); loadHand(); });
    $("back").addEventListener("click", () => stepBy(-1));
    $("forward").addEventListener("click", () => stepBy(1));
    document.addEventListener("keydown", (event) => {
      if ($("replay").hidden || ["INPUT", "SELECT"].includes(event.target.tagName)) return;
      if (event.key === "ArrowLeft") stepBy(-1);
      if (event.key === "ArrowRight") stepBy(1);
    });
    pickGame(games);
  }
  newGame({});
}

attempt(() => api("setup"), setUp);
