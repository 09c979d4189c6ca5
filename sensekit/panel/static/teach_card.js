// What the two teach cards share (teach.js: hand shapes, teach_sound.js: sounds): the request
// that redraws a card, polled while it records, and the list of names with a forget button each.
import { $, api, say } from "./api.js";

// A function that posts a card's action to `url`, redraws the card with `render`, polls the
// status every 250 ms while the card records and puts errors and messages in `resultId`.
export function cardSender(url, resultId, render) {
  let polling = null;
  async function send(body, quiet = false) {
    const r = await api(url, body);
    if (!r.ok) { say(resultId, r.data.error, true); return; }
    render(r.data);
    if (r.data.recording && !polling) polling = setInterval(() => send({ action: "status" }, true), 250);
    if (!r.data.recording && polling) { clearInterval(polling); polling = null; }
    if (!quiet && r.data.message) say(resultId, r.data.message);
  }
  return send;
}

// The names taught so far in the list `listId`, each as "name: <describe(examples)>" and a
// forget button that sends {action: "forget", name}.
export function listNames(listId, examples, describe, send) {
  const list = $(listId);
  list.replaceChildren();
  for (const [name, value] of Object.entries(examples)) {
    const li = document.createElement("li");
    li.dataset.name = name;
    li.textContent = `${name}: ${describe(value)} `;
    const forget = document.createElement("button");
    forget.type = "button";
    forget.textContent = "forget";
    forget.addEventListener("click", () => send({ action: "forget", name }));
    li.appendChild(forget);
    list.appendChild(li);
  }
}
