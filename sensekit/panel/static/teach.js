// The teach card: record a few seconds of a hand shape per name from the live view, then learn
// and save to the venue profile (sensekit/panel/teach.py through POST /api/teach).
import { $ } from "./api.js";
import { cardSender, listNames } from "./teach_card.js";

const send = cardSender("/api/teach", "teach-result", show);

function show(d) {
  $("teach-state").textContent = !d.recording ? "" : d.left_s === null
    ? `waiting for a hand to record ${d.recording}` : `recording ${d.recording}: ${d.left_s.toFixed(1)} s left`;
  listNames("teach-classes", d.examples, (n) => `${n} hand frames`, send);
  $("teach-record").disabled = !!d.recording;
  $("teach-learn").disabled = !!d.recording || Object.values(d.examples).filter((n) => n > 0).length < 2;
}

export function offerTeach(info) {
  $("teach-card").hidden = !info.teach;
  if (info.teach) send({ action: "status" }, true);
}

export function setupTeach() {
  $("teach-record").addEventListener("click", () => send({
    action: "record", name: $("teach-name").value.trim(), seconds: Number($("teach-seconds").value) }));
  $("teach-learn").addEventListener("click", () => send({ action: "learn" }));
}
