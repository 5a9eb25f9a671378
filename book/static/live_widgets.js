// Live widgets on the book's static pages, offline and from file://, without a widget manager.
// book/live_widgets.py leaves, for each anywidget in a chapter, a <div class="course-live-widget">
// followed by a <script type="application/json"> holding the widget's state as the executed notebook
// saved it (its ES module in `_esm`, its traits). This loader imports that module from a Blob URL
// (a module file cannot be imported from file://, a Blob can) and calls its `render({ model, el })`
// with a small model: get / set / on / off / save_changes, as anywidget's model offers, kept in the
// page (there is no kernel to sync with). No CDN, no require.js.
(function () {
  if (window.courseLiveWidgets) { window.courseLiveWidgets.mount(); return; }

  function makeModel(state) {
    const values = Object.assign({}, state);
    const listeners = {};
    return {
      get: (name) => values[name],
      set(name, value) {
        if (values[name] === value) return;
        values[name] = value;
        for (const cb of (listeners[`change:${name}`] || []).slice()) cb();
        for (const cb of (listeners.change || []).slice()) cb();
      },
      on(event, cb) { (listeners[event] = listeners[event] || []).push(cb); },
      off(event, cb) {
        if (!event) { for (const k of Object.keys(listeners)) delete listeners[k]; return; }
        listeners[event] = (listeners[event] || []).filter((f) => cb && f !== cb);
      },
      save_changes() {},                 // nothing to sync with on a static page
      send() {},
    };
  }

  const modules = new Map();             // one import per distinct module source
  function load(source) {
    if (!modules.has(source)) {
      const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
      modules.set(source, import(url));
    }
    return modules.get(source);
  }

  async function mountOne(el) {
    el.dataset.mounted = "pending";
    const script = el.nextElementSibling;
    try {
      const state = JSON.parse(script.textContent);
      const mod = await load(state._esm);
      const widget = mod.default || mod;
      const model = makeModel(state);
      if (typeof widget.initialize === "function") await widget.initialize({ model });
      el.replaceChildren();              // drop the "loading" note
      await widget.render({ model, el });
      el.dataset.mounted = "yes";
    } catch (err) {
      el.dataset.mounted = "failed";
      el.textContent = `This figure could not start in this browser (${err.message}); run the chapter in JupyterLab.`;
      console.error(err);
    }
  }

  function mount() {
    for (const el of document.querySelectorAll(".course-live-widget:not([data-mounted])")) mountOne(el);
  }

  window.courseLiveWidgets = { mount, makeModel };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
