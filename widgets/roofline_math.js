// The roofline of chapter 01 in the browser: a line-by-line port of specdec.cost_model (t_pass,
// knee_k, largest_free_k, max_sequences; step_cost is in cost_math.js, shared with chapter 06's
// curve) and of widgets.roofline (roofline_curve, title, readout, hover_text, roofline_notes).
// Python stays the reference: tests/test_widgets_js_roofline.py runs this module in Node and
// compares it with specdec over hundreds of random settings, refusals and their messages
// included. No DOM here, so Node can import it.
//
// A model and a GPU are the JSON the widget's Python side sends (the fields of
// specdec.model_specs.ModelSpec and specdec.hardware.GPU), never numbers copied by hand.
//
//   const c = rooflineCurve(data, "llama-3.1-8b", "H100", 1, 1, 0);
//   c.largestFreeK, readout(c)   // 295, "one decode step: <b>4.794 ms</b>; a pass stays ..."

import { fmtFixed, fmtG } from "./pyformat.js";
import { stepCost, weightBytes } from "./cost_math.js";

// Python's repr of a number the widget holds: an int as is, a float with its ".0".
function pyFloat(x) { return Number.isInteger(x) ? `${x}.0` : String(x); }

function checkBatch(B) {
  if (!Number.isFinite(B) || B < 1) throw new Error(`B must be >= 1 (sequences / tokens per sequence), got ${pyFloat(B)}`);
}

// StepCost.t_pass: max(t_W + B t_K, k B t_F) + t_0.
export function tPass(cost, B, k) { return Math.max(cost.t_W + B * cost.t_K, k * B * cost.t_F) + cost.t_0; }

// StepCost.knee_k: where the two branches meet.
export function kneeK(cost, B) {
  checkBatch(B);
  return (cost.t_W + B * cost.t_K) / (B * cost.t_F);
}

// StepCost.largest_free_k: the largest integer k with k B t_F <= t_W + B t_K.
export function largestFreeK(cost, B) {
  checkBatch(B);
  const memory = cost.t_W + B * cost.t_K;
  let k = Math.floor(memory / (B * cost.t_F));
  while ((k + 1) * B * cost.t_F <= memory) k += 1;        // guard against rounding just below an integer
  while (k > 0 && k * B * cost.t_F > memory) k -= 1;
  return k;
}

// specdec.cost_model.max_sequences (T > 0): sequences of T cached tokens beside one copy of the weights.
export function maxSequences(model, gpu, nGpu, T) {
  const free = nGpu * gpu.memory - weightBytes(model);
  return Math.max(0, Math.floor(free / (T * model.kv_bytes_per_token)));
}

// np.round(np.geomspace(1, kMax, n)): numpy computes 10**linspace(log10 1, log10 kMax), ends exact,
// and rounds halves to even.
function kGrid(kMax, n) {
  const lo = Math.log10(1), hi = Math.log10(kMax), step = (hi - lo) / (n - 1), out = [];
  for (let i = 0; i < n; i++) {
    const v = i === 0 ? 1 : i === n - 1 ? kMax : Math.pow(10, i * step + lo);
    const r = Math.round(v);
    out.push(Math.abs(v - Math.trunc(v)) === 0.5 && r % 2 !== 0 ? r - 1 : r);
  }
  return out;
}

/** widgets.roofline.roofline_curve for the widget's setting, or throws Error with Python's message.
 *  `data` is the widget's data trait (models, GPUs, k_max, n_points). */
export function rooflineCurve(data, modelKey, gpuKey, nGpu, B, T) {
  const model = data.models[modelKey], gpu = data.gpus[gpuKey];
  if (!model) throw new Error(`no model '${modelKey}' here; choose one of ${Object.keys(data.models).join(", ")}`);
  if (!gpu) throw new Error(`no GPU '${gpuKey}' here; choose one of ${Object.keys(data.gpus).join(", ")}`);
  const cost = stepCost(model, gpu, nGpu, T);
  const knee = kneeK(cost, B);
  const free = largestFreeK(cost, B);
  const kMax = data.k_max;
  const set = new Set(kGrid(kMax, data.n_points));
  for (const v of [free, free + 1]) if (v >= 1 && v <= kMax) set.add(v);
  const k = [...set].sort((a, b) => a - b);
  const curve = {
    model, gpu, modelKey, gpuKey, nGpu, B, T, cost, k,
    label: `${model.name}, ${nGpu}×${gpu.name}, B=${B}, T̄=${fmtG(T)}`,
    tPass: k.map((v) => tPass(cost, B, v)),
    memoryTime: cost.t_W + B * cost.t_K + cost.t_0,
    kneeK: knee,
    largestFreeK: free,
    slope: B * cost.t_F,
  };
  curve.timeAt = (v) => tPass(cost, B, v);
  return curve;
}

export function kneeLabel(curve) { return `knee k ≈ ${fmtFixed(curve.kneeK, 0)}`; }

/** widgets.roofline.title: the figure's second title line. */
export function title(curve) {
  const extra = `+${fmtFixed(curve.slope * 1e3, 4)} ms per extra token`;
  if (curve.largestFreeK === 0) return `no flat part: ${extra} from k = 1`;
  return `flat (free) up to k = ${curve.largestFreeK}; then ${extra}`;
}

/** widgets.roofline.readout: the line under the figure (HTML), character for character. */
export function readout(curve) {
  const step = `one decode step: <b>${fmtFixed(curve.tPass[0] * 1e3, 3)} ms</b>; `;
  const free = curve.largestFreeK;
  if (free === 0) {
    return step + `even one token per sequence is compute-bound at B = ${curve.B}: every extra token ` +
      `per sequence adds <b>${fmtFixed(curve.slope * 1e3, 4)} ms</b>`;
  }
  return step + `a pass stays at that cost up to <b>k = ${free}</b> tokens per sequence ` +
    `(${fmtFixed(free * curve.B, 0, true)} tokens per weight read)`;
}

/** widgets.roofline.hover_text: the pass over k tokens per sequence, in ms and in decode steps. */
export function hoverText(curve, k) {
  const t = curve.timeAt(k);
  if (k <= curve.largestFreeK) return `k = ${k}: a pass takes ${fmtFixed(t * 1e3, 3)} ms, one decode step (free)`;
  return `k = ${k}: a pass takes ${fmtFixed(t * 1e3, 3)} ms, ${fmtFixed(t / curve.timeAt(1), 2)} decode steps`;
}

/** widgets.roofline.roofline_notes: what does not fit, and what the cost model leaves out. */
export function notes(curve) {
  const { model, gpu, nGpu, B, T } = curve;
  const out = [];
  const memory = nGpu * gpu.memory;
  if (weightBytes(model) > memory) {
    out.push(`${model.name}'s weights (${fmtFixed(weightBytes(model) / 1e9, 0, true)} GB) do not fit in ` +
             `${nGpu}×${gpu.name} (${fmtFixed(memory / 1e9, 0, true)} GB): the times assume they did; add GPUs`);
  } else if (T > 0 && B > maxSequences(model, gpu, nGpu, T)) {
    out.push(`the caches of ${B} sequences of ${fmtFixed(T, 0, true)} tokens do not fit beside the weights: ` +
             `${nGpu}×${gpu.name} holds at most ${fmtFixed(maxSequences(model, gpu, nGpu, T), 0, true)}; the times ` +
             `assume they did (fewer sequences, a shorter context or more GPUs)`);
  }
  if (model.n_experts > 0) {
    out.push(`${model.name} is a mixture of experts: this chapter's model reads all ` +
             `${fmtFixed(weightBytes(model) / 1e9, 0, true)} GB of weights every pass; a real pass reads the shared ` +
             `weights and only the experts its tokens are routed to (chapter 06 prices that)`);
  }
  return out;
}

/** The message box's text: each note on its own line, as the Python side's `message`. */
export function message(curve) { return notes(curve).map((n) => `⚠ ${n}`).join("\n"); }
