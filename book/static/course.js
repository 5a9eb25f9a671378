/* The course book's page script (book/conf.py loads it on every page).
 *
 * 1. Search works from file:// as over http. Sphinx's search page fetches each hit's page to
 *    quote a summary; a browser refuses fetch() on file:// ("Failed to fetch"). Here the page
 *    text comes from _static/course-search-text.js (written by book/search_text.py) instead.
 * 2. Math in the search results is typeset (the page's own MathJax ran before they existed).
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
})();
