/* The course book's page script (book/conf.py loads it on every page).
 *
 * 1. Search works from file:// as over http. Sphinx's search page fetches each hit's page to
 *    quote a summary; a browser refuses fetch() on file:// ("Failed to fetch"). Here the page
 *    text comes from _static/course-search-text.js (written by book/search_text.py) instead.
 * 2. Math in the search results is typeset (the page's own MathJax ran before they existed).
 * 3. A formula wider than the column (on a phone) is scaled down until it fits, to no less than
 *    MIN_MATH_SCALE of its size: MathJax 3 does not break lines, and a formula cut at the column's
 *    edge, to be scrolled, reads worse than a smaller one. What still does not fit scrolls inside its
 *    own box (course.css); a formula that fits but for a glyph's overhang shows it instead of a scroll
 *    bar. The scale is kept in data-course-scale (the layout test reads it).
 * 4. A printed table (a code cell's output with three or more rows, a row being a line of three or
 *    more columns set apart by two or more spaces) keeps each row on one line: wrapped, as other
 *    printed lines are (course.css), its columns would break apart on a phone. Each row goes in a
 *    `course-row` span that does not wrap (the output's other lines still do), or, in an output
 *    coloured by the kernel (spans of its own), the whole box stops wrapping (`course-nowrap`). The box
 *    is marked `course-table`. A table wider than the column is first scaled down until it fits, to
 *    no less than MIN_TABLE_SCALE of its size (kept in data-course-scale); what still does not fit
 *    scrolls sideways, marked `course-wide` (a shadow on the edge it continues past), focusable
 *    (tabindex: a keyboard scrolls it too) and preceded by a note saying so.
 */
(function () {
  "use strict";
  const root = document.documentElement.dataset.content_root || "";
  const onSearchPage = () => !!document.getElementById("search-results");

  if (window.location.protocol === "file:") {
    let texts = null;
    const loadTexts = () => texts || (texts = new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = root + "_static/course-search-text.js";
      script.onload = () => resolve(window.COURSE_SEARCH_TEXT || {});
      script.onerror = () => resolve({});
      document.head.appendChild(script);
    }));
    const realFetch = window.fetch ? window.fetch.bind(window) : null;
    window.fetch = function (resource, init) {
      const url = new URL(typeof resource === "string" ? resource : resource.url, window.location.href);
      if (url.protocol !== "file:" || !url.pathname.endsWith(".html")) {
        return realFetch ? realFetch(resource, init) : Promise.reject(new TypeError("no fetch"));
      }
      const page = decodeURIComponent(url.pathname.split("/").pop().replace(/\.html$/, ""));
      return loadTexts().then((all) => new Response(
        '<div role="main">' + (all[page] || "") + "</div>", {headers: {"Content-Type": "text/html"}}));
    };
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (!onSearchPage()) return;
    const results = document.getElementById("search-results");
    let pending = null;
    new MutationObserver(() => {
      if (pending || !(window.MathJax && MathJax.typesetPromise)) return;
      pending = setTimeout(() => {
        pending = null;
        MathJax.typesetPromise([results]).catch(() => {});
      }, 50);
    }).observe(results, {childList: true, subtree: true});
  });

  const MIN_MATH_SCALE = 0.7;
  const OVERHANG = 3;        // px a glyph may stick out of its box (an italic's slant): shown, not scrolled
  // Scales `el` down until it fits its box, to no less than `min` of its size (`slack` px may stick
  // out); `setScale(s)` sets its font size, s = 1 its own. The scale reached is kept in
  // data-course-scale (the layout test reads it). Formulas (3) and printed tables (4) share it.
  const shrinkToFit = (el, min, slack, setScale) => {
    let scale = 1;
    setScale(scale);
    for (let i = 0; i < 3 && scale > min && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + slack; i++) {
      scale = Math.max(min, scale * el.clientWidth / el.scrollWidth);   // widths follow the font size
      setScale(scale);
    }
    el.dataset.courseScale = scale.toFixed(3);
  };
  // Runs `fit` again once the window has stopped resizing for 100 ms.
  const refitOnResize = (fit) => {
    let pending = null;
    window.addEventListener("resize", () => { clearTimeout(pending); pending = setTimeout(fit, 100); });
  };
  const fitMath = () => {
    document.querySelectorAll("mjx-container").forEach((m) => {
      if (m.dataset.courseSize === undefined) m.dataset.courseSize = m.style.fontSize || "";
      const size = parseFloat(m.dataset.courseSize) || 100;          // MathJax's own size, in %
      m.style.overflowX = m.style.overflowY = "";
      shrinkToFit(m, MIN_MATH_SCALE, OVERHANG,
                  (s) => { m.style.fontSize = s === 1 ? m.dataset.courseSize : (size * s).toFixed(1) + "%"; });
      if (m.scrollWidth <= m.clientWidth + OVERHANG) m.style.overflowX = m.style.overflowY = "visible";   // both: one alone computes to auto
    });
  };
  // 4. Printed tables.
  const GAP = / {2,}(?=\S)/g;                                // a gap between two columns
  const isRow = (line) => (line.trim().match(GAP) || []).length >= 2;
  const isRule = (line) => /^\s*[-=_+|:]{3,}[-=_+|: ]*$/.test(line);   // a table's ruled line, ---- or ====
  const isTable = (text) => text.split("\n").filter(isRow).length >= 3;
  const keepRows = (pre) => {
    if ([...pre.children].some((e) => e.textContent)) {   // coloured output: its spans are the kernel's
      pre.classList.add("course-nowrap");
      return;
    }
    const lines = pre.textContent.split("\n");
    pre.textContent = "";
    lines.forEach((line, i) => {
      if (i > 0) pre.appendChild(document.createTextNode("\n"));
      if (isRow(line) || isRule(line)) {
        const row = document.createElement("span");
        row.className = "course-row";
        row.textContent = line;
        pre.appendChild(row);
      } else if (line) {
        pre.appendChild(document.createTextNode(line));
      }
    });
  };
  const MIN_TABLE_SCALE = 0.85;
  const fitTable = (pre) => {
    pre.style.fontSize = "";
    const size = parseFloat(getComputedStyle(pre).fontSize);     // its own size, in px
    shrinkToFit(pre, MIN_TABLE_SCALE, 1, (s) => { pre.style.fontSize = s === 1 ? "" : (size * s).toFixed(2) + "px"; });
  };
  const atEnd = (pre) => pre.scrollLeft + pre.clientWidth >= pre.scrollWidth - 1;
  const markWide = () => {
    document.querySelectorAll("pre.course-table").forEach((pre) => {
      fitTable(pre);
      const wide = pre.scrollWidth > pre.clientWidth + 1;
      pre.classList.toggle("course-wide", wide);
      pre.classList.toggle("course-scrolled-end", wide && atEnd(pre));
      if (wide) pre.setAttribute("tabindex", "0"); else pre.removeAttribute("tabindex");
      const box = pre.closest(".output") || pre.parentElement;
      let note = box.previousElementSibling;
      if (!(note && note.classList.contains("course-scroll-note"))) note = null;
      if (wide && !note) {
        note = document.createElement("p");
        note.className = "course-scroll-note";
        note.setAttribute("aria-hidden", "true");          // what a screen reader needs is the table's text
        note.textContent = "A wide table: scroll sideways to see every column \u2192";
        box.parentElement.insertBefore(note, box);
      }
      if (note) note.hidden = !wide;
    });
  };
  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("div.cell_output pre").forEach((pre) => {
      if (!isTable(pre.textContent)) return;
      keepRows(pre);
      pre.classList.add("course-table");
      pre.addEventListener("scroll", () => pre.classList.toggle("course-scrolled-end", atEnd(pre)), {passive: true});
    });
    markWide();
    refitOnResize(markWide);
  });

  window.addEventListener("load", () => {
    if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) return;
    MathJax.startup.promise.then(() => {
      fitMath();
      refitOnResize(fitMath);
    });
  });
})();
