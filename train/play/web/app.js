// The page of `ginrummy serve`: play an agent, step through a replay file.
// Every rule lives on the server: the page shows the choices it is sent and sends the
// terminal's commands ("take", "d 7H", "k 7H", "gin"); the server answers a new view.
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const CARD = /\b([A2-9TJQK])([CDHS])\b/g;
const PILE_DEPTHS = 4;   // the most layers a pile is drawn with under its top card
const HINT_MOVES = 3;    // the hint's most likely moves shown
const OPPONENTS = {
  random: "random: any legal move",
  simple: "simple: Neller's rules of thumb",
  greedy: "greedy: one-ply heuristic",
  montecarlo: "montecarlo: search",
  ppo: "ppo: the trained policy",
  selfplay: "selfplay: trained from scratch",
};
const $ = (id) => document.getElementById(id);
/** The server's secret, sent with every POST: other sites' pages cannot read it. */
const TOKEN = document.querySelector('meta[name="ginrummy-token"]').content;

let gameId = null;
let view = null;       // the current game as the server sent it
let knocking = false;  // the Knock button was pressed: a card click knocks with it
let hintAsked = 0;     // the positions a hint was asked for: an answer for an older one is dropped
let hinted = null;     // the card of the hint's most likely move, marked in the hand
let logged = { game: null, hand: 0 };
let replay = { game: 1, hand: 1, data: null, step: 0, games: [] };

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

function pause() {
  return new Promise((resolve) => { setTimeout(resolve, 1000); });
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
      await pause();
      ask = () => api(`games/${err.pending}`);
    }
  }
}

/** Count one more event named `name` on the body's data attributes (tests wait on them). */
function count(name) {
  document.body.dataset[name] = String(Number(document.body.dataset[name] || 0) + 1);
}

/** Run an API call and show what it answers with `show`, or its error; the body's
 *  data-answers counts the answers shown. */
async function attempt(call, show) {
  try {
    const data = await call();
    $("error").textContent = "";
    show(data);
  } catch (err) {
    $("error").textContent = err.message;
  }
  count("answers");
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function rank(text) {
  return text[0] === "T" ? "10" : text[0];
}

function isRed(text) {
  return "DH".includes(text[1]);
}

/** A card ("TD") in a line of text: rank and suit sign, red or black. */
function pip(text) {
  return element("span", "pip" + (isRed(text) ? " red" : ""), rank(text) + SUITS[text[1]]);
}

/** `text` with every card in it ("7H") written as a pip ("7♥"). */
function rich(text) {
  const out = document.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(CARD)) {
    out.append(text.slice(last, match.index), pip(match[0]));
    last = match.index + match[0].length;
  }
  out.append(text.slice(last));
  return out;
}

/** A node holding `text` with its cards as pips. */
function richElement(tag, className, text) {
  const node = element(tag, className);
  node.append(rich(text));
  return node;
}

/** A card face ("TD"): rank over suit; a button when `onClick` is given.  `small`, `drawn` (just
 *  drawn: marked until the discard), `known` (an opponent's card seen taken from the pile), `laid`
 *  (laid off onto a meld), `note` (the deadwood a knock with it leaves). */
function card(text, { onClick, small, note, drawn, known, laid } = {}) {
  const node = element(onClick ? "button" : "div", "card");
  const flags = { small, red: isRed(text), drawn, known, laid };
  Object.entries(flags).forEach(([name, on]) => { if (on) node.classList.add(name); });
  node.dataset.card = text;
  node.title = rank(text) + SUITS[text[1]] + (drawn ? " (just drawn)" : "") +
    (known ? " (taken from the pile)" : "") + (laid ? " (laid off)" : "");
  node.append(element("span", "rank", rank(text)), element("span", "suit", SUITS[text[1]]));
  if (note !== undefined) node.append(element("span", "left", note));
  if (onClick) {
    node.type = "button";
    node.addEventListener("click", () => onClick(text));
  }
  return node;
}

function cardBack(className) {
  return element("div", "card back" + (className ? " " + className : ""));
}

/** Cards side by side ("-" for none); `options(card)` gives each card's options. */
function cardRow(cards, options = () => ({})) {
  const row = element("span", "cards", cards.length ? undefined : "-");
  cards.forEach((text) => row.append(card(text, options(text))));
  return row;
}

/** A pile of `size` cards seen from above, layers showing its depth: the stock face down with
 *  its count, the discard pile with `top` face up (an empty dashed place when there is none). */
function pileElement(kind, size, top) {
  const node = element("div", `pile ${kind} depth-${Math.min(Math.max(size - 1, 0), PILE_DEPTHS)}`);
  node.dataset.size = String(size);
  if (size === 0) {
    node.append(element("div", "card empty"));
  } else if (kind === "stock") {
    const back = cardBack();
    back.append(element("span", "count", String(size)));
    node.append(back);
  } else {
    node.append(card(top));
  }
  node.append(element("div", "label", kind === "stock" ? `${size} cards` : `${size - 1} under it`));
  return node;
}

/** A hand in its melds, then its deadwood: `hand.laid_on[i]` (cards laid off onto meld i, shown
 *  on it) and `hand.before` (the deadwood before layoffs) where the hand ended a showdown;
 *  `options(card)` gives each card's options. */
function handElement(hand, options = () => ({})) {
  const node = element("div", "hand");
  const group = (cards, className, label, laid = []) => {
    const box = element("div", "group " + className);
    const row = cardRow(cards, options);
    laid.forEach((text) => row.append(card(text, { ...options(text), laid: true })));
    box.append(row, element("span", "label", label));
    node.append(box);
  };
  hand.melds.forEach((meld, i) => {
    const laid = hand.laid_on ? hand.laid_on[i] : [];
    group(meld, "meld", laid.length ? "meld + laid off" : "meld", laid);
  });
  const before = hand.before !== undefined && hand.before !== hand.points ? `${hand.before} \u2192 ` : "";
  const label = `deadwood ${before}${hand.points}` + (before ? " after layoffs" : "");
  if (hand.deadwood.length) group(hand.deadwood, "dead", label);
  else if (before) group([], "dead", label);
  return node;
}

function cardsText(cards) {
  return cards.length ? cards.join(" ") : "-";
}

// ----- play -------------------------------------------------------------------------

function statusLine(v) {
  const table = v.table;
  let line = `hand ${v.hand_number} (${v.ruleset}` + (table ? `, knock limit ${table.knock_limit})` : ")");
  if (table) line += table.you_deal ? " | you deal" : ` | ${v.opponent} deals`;
  if (v.episode === "game") line += ` | score: you ${v.scores[0]}, ${v.opponent} ${v.scores[1]} (game to ${v.target})`;
  return line;
}

function prompt(table) {
  const c = table.choices;
  if (knocking) return "Click the card to discard face down (deadwood left under each), or Knock again to cancel.";
  if (c.pass) return `The upcard ${table.top} is offered to you: take it or pass.`;
  if (c.draw) return c.take ? `Draw from the stock or take ${table.top}.` : "Draw from the stock.";
  if (c.discard.length) return "Click a card to discard it" + (Object.keys(c.knock).length ? ", or knock." : ".");
  return "";
}

/** A card of the hand: a click discards it, or knocks with it after the Knock button. */
function cardOptions(table) {
  const c = table.choices;
  return (text) => ({
    onClick: (t) => move((knocking ? "k " : "d ") + t),
    note: knocking && text in c.knock ? String(c.knock[text]) : undefined,
    drawn: text === table.drawn,
  });
}

/** The opponent's hand face down, with its count: the cards it took from the pile (and
 *  still holds) face up at the end, then what it passed over. */
function showOpponent(v) {
  const table = v.table;
  $("opponent-name").textContent = v.opponent;
  $("opponent-count").textContent = `${table.opp_cards} cards`;
  const backs = Array.from({ length: table.opp_cards - table.opp_picked.length }, () => cardBack("small"));
  const known = table.opp_picked.map((text) => card(text, { small: true, known: true }));
  $("opponent-hand").replaceChildren(...backs, ...known);
  $("opponent-info").replaceChildren(...(table.opp_declined.length ? ["passed over: ",
    cardRow(table.opp_declined, () => ({ small: true }))] : []));
}

function showTable(v) {
  const table = v.table;
  const c = table.choices;
  showOpponent(v);
  $("stock").replaceChildren(pileElement("stock", table.stock));
  $("pile").replaceChildren(pileElement("discard", table.top ? table.pile_under + 1 : 0, table.top));
  const hand = handElement(table.hand, cardOptions(table));
  hand.id = "hand";
  hand.classList.toggle("playable", c.discard.length > 0);
  hand.querySelectorAll("button.card").forEach((node) => {
    const text = node.dataset.card;
    node.disabled = knocking ? !(text in c.knock) : !c.discard.includes(text);
  });
  $("hand").replaceWith(hand);
  markHint();
  $("note").replaceChildren(rich(table.no_discard ? `you took ${table.no_discard}: discard another card` : ""));
  $("take").replaceChildren(rich(table.top ? `Take ${table.top}` : "Take"));
  const enabled = { take: c.take, draw: c.draw, pass: c.pass, knock: Object.keys(c.knock).length > 0,
    gin: c.gin, "big-gin": c.big_gin };
  Object.entries(enabled).forEach(([id, on]) => { $(id).disabled = !on; });
  $("knock").classList.toggle("on", knocking);
  $("prompt").replaceChildren(rich(prompt(table)));
}

/** A hint's move in words: "discard 7H", "knock with 9S (deadwood 6)", "take 5C". */
function moveWords(m) {
  if (m.move === "knock") return `knock, ${m.card} face down (deadwood ${m.left})`;
  if (m.move === "gin") return `gin, ${m.card} face down`;
  return m.card ? `${m.move} ${m.card}` : m.move;
}

/** The hint's most likely moves, each a button that plays it, with its probability. */
function showHintMoves(data) {
  const list = element("ol", "moves");
  data.moves.slice(0, HINT_MOVES).forEach((m) => {
    const item = element("li");
    const button = richElement("button", "hint-move", moveWords(m));
    button.type = "button";
    button.dataset.command = m.command;
    button.addEventListener("click", () => move(m.command));
    const bar = element("progress");
    bar.max = 1;
    bar.value = m.probability;
    item.append(button, bar, element("span", "probability", `${(100 * m.probability).toFixed(1)}%`));
    list.append(item);
  });
  $("hint").replaceChildren(element("div", "label", `${data.agent} would play, with its probabilities:`), list);
  const best = data.moves[0];
  hinted = ["discard", "knock", "gin"].includes(best.move) ? best.card : null;
  markHint();
}

function markHint() {
  $("hand").querySelectorAll("button.card").forEach((node) => {
    node.classList.toggle("hinted", node.dataset.card === hinted);
  });
}

/** Ask for the hint of the position on show when the hint is on and it is the person's turn
 *  (again each second while the game is busy); the body's data-hints counts the positions
 *  this was done for (hint shown or not). */
async function showHint() {
  const on = $("hint-on").checked && view !== null && view.table !== null && view.table.your_turn;
  const asked = ++hintAsked;
  $("hint").hidden = !on;
  hinted = null;
  markHint();
  if (on) {
    $("hint").replaceChildren(element("div", "label", "thinking\u2026"));
    const data = await askHint();
    if (asked === hintAsked) {
      if (data instanceof Error) $("hint").replaceChildren(element("div", "label", data.message));
      else showHintMoves(data);
    }
  }
  count("hints");
}

/** The game's hint, asked again each second while the game is busy; an error is returned. */
async function askHint() {
  for (;;) {
    try {
      return await api(`games/${gameId}/hint`, {});
    } catch (err) {
      if (!err.pending) return err;
      await pause();
    }
  }
}

/** The end of a hand (play and replay): both hands as shown, with the layoffs on the
 *  knocker's melds and the deadwood before and after them, then how it was scored. */
function handEndElement(end) {
  const node = element("div", "hand-end");
  const r = end.result;
  node.append(element("p", "headline", headline(r)));
  // the opponent above, the person below, as at the table
  [...end.hands].sort((a, b) => (a.name === "you") - (b.name === "you")).forEach((hand) => {
    const seat = element("div", "seat");
    let title = hand.name;
    if (hand.role === "knocker") {
      title += ` \u2014 ${r.outcome === "knock" || r.outcome === "undercut" ? "knocked" : "went " +
        r.outcome.replace("_", " ")}` + (r.knock_discard ? `, ${r.knock_discard} face down` : "");
    } else if (hand.role === "defender" && hand.laid_off.length) {
      title += ` \u2014 laid off ${cardsText(hand.laid_off)}`;
    }
    seat.append(richElement("h3", "", title), handElement(hand, () => ({ small: true })));
    node.append(seat);
  });
  node.append(element("p", "score", end.score));
  return node;
}

function headline(r) {
  if (!r.winner) return `Hand over: ${r.truncated ? "cut off by the turn limit" : "dead hand"}, no score.`;
  const verb = r.winner === "you" ? "score" : "scores";
  return `${r.outcome === "big_gin" ? "Big gin" : r.outcome[0].toUpperCase() + r.outcome.slice(1)}: ` +
    `${r.winner} ${verb} ${r.points}` + (r.doubled ? " (doubled: spade upcard)." : ".");
}

/** The score sheet of a game: each hand's result and points with the running totals and, at
 *  the end, the engine's boxes (hands won), game bonus and final scores. */
function sheetElement(sheet, target) {
  const table = element("table", "sheet");
  const row = (className, ...cells) => {
    const tr = element("tr", className);
    cells.forEach(([tag, text, cls, span]) => {
      const cell = element(tag, cls, text);
      if (span) cell.colSpan = span;
      tr.append(cell);
    });
    table.append(tr);
  };
  row("", ["th", "#"], ["th", "result"], ...sheet.names.map((who) => ["th", who, "player", 2]));
  if (!sheet.rows.length) row("", ["td", "no hand finished yet", "outcome", 6]);
  sheet.rows.forEach((r) => {
    const columns = [0, 1].flatMap((i) => [["td", r.points[i] ? `+${r.points[i]}` : "", "points"],
      ["td", String(r.totals[i]), "total"]]);
    row("", ["td", String(r.hand)], ["td", r.outcome.replace("_", " ") + (r.doubled ? " \u00d72" : ""), "outcome"],
      ...columns);
  });
  if (sheet.end) {
    const e = sheet.end;
    const line = (className, label, values) => row(className, ["td", label, "end-label", 2],
      ...values.map((value) => ["td", String(value), "total", 2]));
    line("end", "points", e.points);
    line("end", `boxes (${e.hands_won[0]}, ${e.hands_won[1]})`, e.box_bonus);
    line("end", "game bonus" + (e.shutout ? " (shutout)" : ""), e.game_bonus);
    line("end final", "final", e.final);
  }
  const box = element("div");
  box.append(element("div", "label", `game to ${target}` + (sheet.end ? ` \u2014 ${sheet.end.winner} won` : "")),
    table);
  return box;
}

/** Add what happened to the game's log: a title for each hand, the moves, each hand's score. */
function addToLog(v) {
  const log = $("log");
  if (v.id !== logged.game) {
    log.replaceChildren();
    logged = { game: v.id, hand: 0 };
  }
  if (v.hand_number !== logged.hand) {
    log.append(element("li", "log-hand", `hand ${v.hand_number}`));
    logged.hand = v.hand_number;
  }
  v.news.forEach((line) => log.append(richElement("li", "", line)));
  if (v.hand_end) log.append(element("li", "log-score", v.hand_end.score));
  log.scrollTop = log.scrollHeight;
}

function showGame(v) {
  view = v;
  knocking = false;
  $("status").textContent = statusLine(v);
  $("news").replaceChildren(...v.news.map((line) => richElement("li", "", line)));
  $("board").hidden = v.table === null;
  $("hand-end").hidden = v.hand_end === null;
  if (v.table) showTable(v);
  if (v.hand_end) {
    $("summary").replaceChildren(handEndElement(v.hand_end));
    $("game-end").textContent = v.game_end || "";
    $("next").hidden = v.over;
  }
  $("sheet-box").hidden = v.episode !== "game";
  $("sheet").replaceChildren(sheetElement(v.sheet, v.target));
  addToLog(v);
  document.body.dataset.over = v.over ? "1" : "0";
  showHint();
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
  $("move").replaceChildren(rich(step.text));
  const seats = step.hands.map((hand, seat) => {
    const node = element("div", "seat" + (step.to_act === replay.data.names[seat] ? " to-act" : ""));
    node.append(element("h3", "", replay.data.names[seat]), handElement(hand));
    return node;
  });
  const piles = element("div", "piles");
  const spot = (label, pile) => {
    const node = element("div", "pile-spot");
    node.append(element("div", "label", label), pile);
    return node;
  };
  piles.append(spot("stock", pileElement("stock", step.stock)),
    spot("discard pile", pileElement("discard", step.top ? step.pile_under + 1 : 0, step.top)));
  $("replay-table").replaceChildren(seats[0], piles, seats[1]);
  const end = [];
  if (step.hand_end) {
    end.push(handEndElement(step.hand_end));
    const [a, b] = replay.data.names;
    end.push(element("p", "score", `running score: ${a} ${replay.data.scores[0]} - ${b} ${replay.data.scores[1]}`));
    const game = replay.games[replay.game - 1];
    if (game.episode === "game") end.push(sheetElement(replay.data.sheet, replay.data.target));
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

function pickGame() {
  replay.game = Number($("replay-game").value);
  replay.hand = 1;
  const hands = replay.games[replay.game - 1].hands;
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

function showTab(tab) {
  $("play").hidden = tab !== "play";
  $("replay").hidden = tab !== "replay";
  $("tab-play").classList.toggle("active", tab === "play");
  $("tab-replay").classList.toggle("active", tab === "replay");
}

// ----- start ------------------------------------------------------------------------

function setUp(setup) {
  options($("opponent"), setup.opponents, setup.opponents.map((o) => OPPONENTS[o] || o));
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
  $("hint-toggle").hidden = !setup.hint;
  $("hint-agent").textContent = setup.hint || "";
  $("hint-on").checked = false;
  $("hint-on").addEventListener("change", showHint);
  $("tab-play").addEventListener("click", () => showTab("play"));
  if (setup.replay) {
    replay.games = setup.replay.games;
    $("tab-replay").disabled = false;
    $("tab-replay").title = setup.replay.file;
    $("tab-replay").addEventListener("click", () => showTab("replay"));
    $("replay-file").textContent = setup.replay.file;
    options($("replay-game"), replay.games.map((_, i) => i + 1),
      replay.games.map((g, i) => `${i + 1}: ${g.players.join(" vs ")}`));
    $("replay-game").addEventListener("change", pickGame);
    $("replay-hand").addEventListener("change", () => { replay.hand = Number($("replay-hand").value); loadHand(); });
    $("back").addEventListener("click", () => stepBy(-1));
    $("forward").addEventListener("click", () => stepBy(1));
    document.addEventListener("keydown", (event) => {
      if ($("replay").hidden || ["INPUT", "SELECT"].includes(event.target.tagName)) return;
      if (event.key === "ArrowLeft") stepBy(-1);
      if (event.key === "ArrowRight") stepBy(1);
    });
    pickGame();
  }
  newGame({});
}

attempt(() => api("setup"), setUp);
