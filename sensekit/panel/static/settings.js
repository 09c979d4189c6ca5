// Every running setting of the table as a control with its unit and range; save.
import { $, api, panel, say } from "./api.js";

// 600000 and 1073741824 are read at a glance as 600,000 and 1,073,741,824
const num = (v) => Math.abs(v) >= 10000 ? v.toLocaleString("en-US", { maximumFractionDigits: 6 }) : String(v);

function rangeText(s) {
  const unit = s.unit ? " " + s.unit : "";
  if (s.lo !== null && s.hi !== null) return `${num(s.lo)}..${num(s.hi)}${unit}`;
  if (s.lo !== null) return `≥ ${num(s.lo)}${unit}`;
  return unit.trim();
}

function zonesText(z) {
  if (!z) return "";
  return Object.entries(z).map(([n, b]) => `${n}=${b.map((v) => +(+v).toFixed(4)).join(",")}`).join(";");
}

// a checkbox for an optional setting: checked means "none" (what the table says it means)
function addNone(s, box, inputs, current, send) {
  const lbl = document.createElement("label");
  const none = element("input", "checkbox", "none");
  none.addEventListener("change", () => {
    if (none.checked) send(null);
    else if (current() !== undefined) send(current());
  });
  lbl.appendChild(none);
  lbl.append(" " + s.none);
  lbl.className = "none";
  box.appendChild(lbl);
  inputs.push(none);
}

const LOG_STEPS = 1000;

// slider position 0..LOG_STEPS <-> value lo..hi in equal ratios (a whole number for an int)
function fromLog(s, pos) {
  const v = s.lo * Math.pow(s.hi / s.lo, Number(pos) / LOG_STEPS);
  return s.kind === "int" ? Math.round(v) : Number(v.toPrecision(4));
}

function toLog(s, v) {
  const x = Math.min(Math.max(Number(v), s.lo), s.hi);
  return String(Math.round(LOG_STEPS * Math.log(x / s.lo) / Math.log(s.hi / s.lo)));
}

function element(tag, type, role) {
  const el = document.createElement(tag);
  if (type) el.type = type;
  el.dataset.role = role;
  return el;
}

function makeControl(s, row) {
  const box = document.createElement("div");
  box.className = "control";
  const send = (value, asText) => setValue(s, row, value, asText);
  const inputs = [];
  const add = (el, onChange) => {           // one input of the control, sending on "change"
    el.addEventListener("change", onChange);
    box.appendChild(el);
    inputs.push(el);
    return el;
  };
  if (s.kind === "float" || s.kind === "int") {
    const num = element("input", "number", "value");
    const step = s.kind === "int" ? 1 : (s.step || (s.control === "linear" ? (s.hi - s.lo) / 200 : "any"));
    num.step = String(step);
    if (s.lo !== null) num.min = s.lo;
    if (s.hi !== null) num.max = s.hi;
    if (s.control === "log") {               // a wide range from above 0: the slider moves in powers
      const range = element("input", "range", "slider");
      range.min = 0; range.max = LOG_STEPS; range.step = 1;
      range.dataset.scale = "log";
      range.setAttribute("aria-label", s.key + " (logarithmic)");
      range.addEventListener("input", () => { num.value = String(fromLog(s, range.value)); });
      add(range, () => send(fromLog(s, range.value)));
    } else if (s.control === "linear") {
      const range = element("input", "range", "slider");
      range.min = s.lo; range.max = s.hi; range.step = String(step);
      range.setAttribute("aria-label", s.key);
      range.addEventListener("input", () => { num.value = range.value; });
      add(range, () => send(Number(range.value)));
    }
    add(num, () => send(num.value.trim() === "" ? null : Number(num.value)));
    // unticking "none" with an empty box sends the lower bound (the slider's middle means nothing)
    const typed = () => (num.value !== "" ? Number(num.value) : (s.lo ?? 0));
    if (s.none) addNone(s, box, inputs, typed, send);
  } else if (s.kind === "bool") {
    const cb = add(element("input", "checkbox", "value"), () => send(cb.checked));
  } else if (s.kind === "choice") {
    const sel = element("select", "", "value");
    for (const c of [...(s.choices || []), ...(s.none ? [""] : [])]) {
      const o = document.createElement("option");
      o.value = c;
      // "none" is a value too: a short name in the list (a long one was cut off at every width),
      // what it means on the line under the list
      o.textContent = c || "(default)";
      if (!c) o.title = s.none;
      sel.appendChild(o);
    }
    add(sel, () => send(sel.value === "" ? null : sel.value));
    if (s.none) {
      const means = document.createElement("span");
      means.className = "none";
      means.textContent = `(default): ${s.none}`;
      box.appendChild(means);
    }
  } else if (s.kind === "color") {
    const col = add(element("input", "color", "value"), () => send(col.value));
    if (s.none) addNone(s, box, inputs, () => col.value, send);
  } else if (s.kind === "numbers") {
    // a learned model (clap.venue_model: 50 numbers) is read, not typed: a read-only line saying
    // whether one is in use; calibrate learns it, OSC and --set may still replace it
    const line = element("input", "text", "value");
    line.readOnly = true;
    line.className = "learned";
    line.title = "learned by calibrate; not edited here";
    box.appendChild(line);
    inputs.push(line);
  } else {
    const text = element("input", "text", "value");
    text.placeholder = s.kind === "zones" ? "name=x,y,w,h;… (fractions)" : "";
    add(text, () => send(text.value, true));
  }
  const unit = document.createElement("span");
  unit.className = "unit";
  unit.textContent = rangeText(s);
  box.appendChild(unit);
  const none = box.querySelector("label.none");     // the range's line stays right under the slider
  if (none) box.appendChild(none);
  row.inputs = inputs;
  return box;
}

function showValue(s, row, v, force) {
  for (const el of row.inputs) {
    if (el === document.activeElement && !force && !el.readOnly) continue;   // the user is typing there
    const role = el.dataset.role;
    if (role === "none") el.checked = v === null;
    else if (el.type === "checkbox") el.checked = !!v;
    else if (el.tagName === "SELECT" && v === null) el.value = "";
    else if (el.type === "range" && (v === null || v === undefined)) el.value = el.dataset.scale === "log" ? "0" : String(s.lo);
    else if (el.dataset.scale === "log") el.value = toLog(s, v);
    else if (s.kind === "zones") el.value = zonesText(v);
    else if (s.kind === "numbers") el.value = v && v.length ? `learned (${v.length} numbers)` : "none";
    else if (el.type === "color") el.value = v || "#000000";
    else el.value = v === null || v === undefined ? "" : String(v);
  }
  row.value = v;
}

async function setValue(s, row, value, asText) {
  const body = asText ? { texts: { [s.key]: value } } : { values: { [s.key]: value } };
  const r = await api("/api/set", body);
  row.el.classList.remove("applied", "rejected");
  void row.el.offsetWidth;
  if (r.ok) {
    row.error.textContent = "";
    row.el.classList.add("applied");
    const applied = (r.data.values || {})[s.key];
    showValue(s, row, applied === undefined ? value : applied);
  } else {
    row.error.textContent = r.data.error || `refused (${r.status})`;
    row.el.classList.add("rejected");
    showValue(s, row, row.value, true);  // nothing changed: show the value in use again
  }
}

const rows = {};
let inUse = {};        // a setting left empty to be learned: the value in use, or "learning"

function inUseText(key) {
  const v = inUse[key];
  if (v === undefined || v === null) return "";
  return v === "learning" ? "learning…" : `${num(v)} (learned)`;
}

// what an empty box stands for: shown in the box (its placeholder) while the value is empty
function showInUse() {
  for (const [k, r] of Object.entries(rows)) {
    const box = r.row.inputs.find((el) => el.dataset.role === "value" && el.type === "number");
    if (!box) continue;
    box.placeholder = inUseText(k);
    box.title = box.placeholder ? `in use now: ${box.placeholder}` : "";
    fitPlaceholder(box);
  }
}

// a box as wide as its placeholder: "0 (learned)" read "0 (learne" in the 6.5rem box
let measure = null;
function fitPlaceholder(box) {
  if (!box.placeholder) { box.style.minWidth = ""; return; }
  const cs = getComputedStyle(box);
  measure = measure || document.createElement("canvas").getContext("2d");
  measure.font = cs.font;
  const sides = ["paddingLeft", "paddingRight", "borderLeftWidth", "borderRightWidth"]
    .reduce((sum, p) => sum + (parseFloat(cs[p]) || 0), 0);
  const spin = 20;                                        // the number box's arrows
  box.style.minWidth = `${Math.ceil(measure.measureText(box.placeholder).width + sides + spin)}px`;
}

export function updateInUse(values) {
  inUse = values || {};
  showInUse();
}

function renderSettings(table) {
  const root = $("settings");
  root.textContent = "";
  if (!table.groups.length) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = "This run has no settings to tune.";
    root.appendChild(p);
    return;
  }
  for (const grp of table.groups) {
    const det = document.createElement("details");
    det.open = true;
    det.dataset.section = grp.section;
    const sum = document.createElement("summary");
    sum.textContent = grp.section;
    const title = document.createElement("span");
    title.textContent = grp.title || "";
    sum.appendChild(title);
    det.appendChild(sum);
    for (const s of grp.settings) {
      const el = document.createElement("div");
      el.className = "setting";
      el.dataset.key = s.key;
      const name = document.createElement("label");
      name.className = "name";
      name.textContent = s.name;
      name.title = s.key;
      const row = { el, error: document.createElement("div") };
      const control = makeControl(s, row);
      const help = document.createElement("div");
      help.className = "help";
      help.textContent = s.help;
      row.error.className = "error";
      row.error.setAttribute("role", "alert");
      el.append(name, control, help, row.error);
      det.appendChild(el);
      rows[s.key] = { s, row };
      showValue(s, row, table.values[s.key]);
      const why = (table.fixed || {})[s.key];
      if (why) fix(row, why, help);
    }
    root.appendChild(det);
  }
}

// a setting this run holds at its value (an app that mirrors the picture itself): shown as it
// is in effect, not editable, and why
function fix(row, why, help) {
  for (const el of row.inputs) { el.disabled = true; el.title = why; }
  row.el.classList.add("fixed");
  const note = document.createElement("span");
  note.className = "fixed-note";
  note.textContent = ` (fixed: ${why})`;
  help.appendChild(note);
}

function sameKeys(keys) {
  return keys.length === Object.keys(rows).length && keys.every((k) => rows[k]);
}

function showValues(values) {
  for (const [k, v] of Object.entries(values)) {
    const r = rows[k];
    if (r && JSON.stringify(r.row.value) !== JSON.stringify(v)) showValue(r.s, r.row, v);
  }
}

let loading = false, rendered = false;

// values from the live socket (keys, OSC, another browser changed them)
export function updateValues(values) {
  if (!rendered) return;                      // loadSettings is on its way
  if (sameKeys(Object.keys(values))) showValues(values);
  else if (!loading) loadSettings();          // a group came or went (motion.method=background)
}

export async function loadSettings() {
  loading = true;
  try {
    const r = await api("/api/settings");
    if (!r.ok) { $("settings").textContent = r.data.error || "settings unavailable"; return; }
    panel.table = r.data;
    if (rendered && sameKeys(Object.keys(r.data.values))) {
      showValues(r.data.values);
    } else {
      for (const k of Object.keys(rows)) delete rows[k];
      renderSettings(r.data);
      rendered = true;
    }
    updateInUse(r.data.in_use);
  } finally {
    loading = false;
  }
}

export async function save() {
  say("save-result", "saving…");
  const r = await api("/api/save", {});
  say("save-result", r.ok ? `saved ${r.data.path}` : r.data.error, !r.ok);
}
