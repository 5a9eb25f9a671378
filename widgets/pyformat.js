// Numbers written as Python's format specs write them, so a readout computed in the page reads
// character for character like the one Python computes (tests/test_widgets_js.py checks both against
// Python over hundreds of numbers). No DOM here, so Node can import it.
//
//   fmtFixed(1755.4, 1, true)   // "1,755.4"  (f"{x:,.1f}")
//   fmtG(0.8)                   // "0.8"      (f"{x:g}")

// f"{x:,.{d}f}" / f"{x:.{d}f}": fixed decimals, optional thousands commas.
export function fmtFixed(x, d, commas = false) {
  if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
  let s = x.toFixed(d);
  if (!commas) return s;
  const neg = s.startsWith("-");
  if (neg) s = s.slice(1);
  const [whole, frac] = s.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return (neg ? "-" : "") + grouped + (frac !== undefined ? "." + frac : "");
}

// f"{x:.{p}g}" (p significant digits, trailing zeros dropped), for the moderate numbers shown here.
export function fmtG(x, p = 6) {
  if (x === 0) return "0";
  const exp = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(p)))));
  if (exp < -4 || exp >= p) {
    const [m, e] = x.toExponential(p - 1).split("e");
    const mant = m.includes(".") ? m.replace(/0+$/, "").replace(/\.$/, "") : m;
    const n = Number(e);
    return `${mant}e${n < 0 ? "-" : "+"}${String(Math.abs(n)).padStart(2, "0")}`;
  }
  const s = x.toFixed(Math.max(0, p - 1 - exp));
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}
