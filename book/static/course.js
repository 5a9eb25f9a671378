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
  const fitMath = () => {
    document.querySelectorAll("mjx-container").forEach((m) => {
      if (m.dataset.courseSize === undefined) m.dataset.courseSize = m.style.fontSize || "";
      const size = parseFloat(m.dataset.courseSize) || 100;          // MathJax's own size, in %
      m.style.fontSize = m.dataset.courseSize;
      m.style.overflowX = m.style.overflowY = "";
      let scale = 1;
      for (let i = 0; i < 3 && scale > MIN_MATH_SCALE && m.clientWidth > 0 && m.scrollWidth > m.clientWidth + OVERHANG; i++) {
        scale = Math.max(MIN_MATH_SCALE, scale * m.clientWidth / m.scrollWidth);   // widths follow the font size
        m.style.fontSize = (size * scale).toFixed(1) + "%";
      }
      if (m.scrollWidth <= m.clientWidth + OVERHANG) m.style.overflowX = m.style.overflowY = "visible";   // both: one alone computes to auto
      m.dataset.courseScale = scale.toFixed(3);
    });
  };
  window.addEventListener("load", () => {
    if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) return;
    MathJax.startup.promise.then(() => {
      fitMath();
      let pending = null;
      window.addEventListener("resize", () => { clearTimeout(pending); pending = setTimeout(fitMath, 100); });
    });
  });
})();
