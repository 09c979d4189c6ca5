// The sound card: record a sound a few times per name from the live audio, then save it to the
// venue profile; the running voice stage hears it at once (sensekit/panel/teach_sound.py through
// POST /api/teach-sound).
import { $ } from "./api.js";
import { cardSender, listNames } from "./teach_card.js";

const send = cardSender("/api/teach-sound", "sound-result", show);

function show(d) {
  $("sound-state").textContent = d.recording
    ? `recording ${d.recording}: ${(d.examples[d.recording] || []).length} of 5` : "";
  listNames("sound-names", d.examples,
    (lengths) => `${lengths.length} caught (${lengths.map((s) => `${s.toFixed(2)} s`).join(", ")})`, send);
  $("sound-stop").disabled = !d.recording;
  $("sound-learn").disabled = !Object.values(d.examples).some((l) => l.length >= 2);
}

export function offerSoundTeach(info) {
  $("sound-card").hidden = !info.teach_sound;
  if (info.teach_sound) send({ action: "status" }, true);
}

export function setupSoundTeach() {
  $("sound-record").addEventListener("click", () => send({ action: "record", name: $("sound-name").value }));
  $("sound-stop").addEventListener("click", () => send({ action: "stop" }));
  $("sound-learn").addEventListener("click", () => send({ action: "learn" }));
}
