// Warhost's game page: times in the reader's zone, the replay, and live updates.
// The server writes every part of the page (escaped); this script only swaps parts the
// server made, so a page updated in place reads as a reload would.
"use strict";

(function () {
  const body = document.body;
  const base = body.dataset.base;
  if (!base) { localTimes(document); return; }

  let latest = Number(body.dataset.version || 0);
  let shown = latest;
  let steps = null;           // each version's caption, from state.json
  let following = true;       // showing the latest position: follow new moves

  const $ = (id) => document.getElementById(id);
  const board = $("board");
  const slider = $("replay-slider");
  const label = $("replay-label");
  const caption = $("caption");
  const link = $("board-link");

  function localTimes(root) {
    const fmt = new Intl.DateTimeFormat(undefined, {
      weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
      timeZoneName: "short",
    });
    const rel = typeof Intl.RelativeTimeFormat === "function"
      ? new Intl.RelativeTimeFormat(undefined, { numeric: "auto" }) : null;
    root.querySelectorAll("time[datetime]").forEach((el) => {
      const at = new Date(el.getAttribute("datetime"));
      if (isNaN(at)) return;
      let text = fmt.format(at);
      if (rel && el.dataset.relative) {
        const hours = (at - Date.now()) / 3600000;
        text += Math.abs(hours) < 48
          ? " (" + rel.format(Math.round(hours), "hour") + ")"
          : " (" + rel.format(Math.round(hours / 24), "day") + ")";
      }
      el.textContent = text;
      el.title = at.toISOString();
    });
  }

  function captionOf(v) {
    if (v <= 0) return "The start of the game.";
    if (!steps) return "Move " + v + ".";
    const step = steps.find((s) => s.v === v);
    return step ? "Move " + v + ": " + step.lines.join(" ") : "Move " + v + ".";
  }

  // Frames already asked for: the neighbours of the one shown are fetched ahead, so
  // stepping through the game does not wait for the server.
  const asked = new Set();
  function prefetch(v) {
    if (v < 0 || v > latest || asked.has(v)) return;
    asked.add(v);
    const img = new Image();
    img.src = base + "/frame/" + v + ".png";
  }

  let pending = null;
  function show(v, settle) {
    if (!board) return;
    v = Math.max(0, Math.min(latest, v));
    const step = v - shown;
    shown = v;
    following = v === latest;
    const src = base + "/frame/" + v + ".png";
    // dragging the slider: only the position it comes to rest on is fetched
    clearTimeout(pending);
    const load = () => {
      board.src = src;
      asked.add(v);
      if (step < 0) prefetch(v - 1); else if (step > 0) prefetch(v + 1);
    };
    if (settle) pending = setTimeout(load, 120); else load();
    board.alt = "The board at move " + v;
    if (link) link.href = src;
    if (slider) { slider.max = String(latest); slider.value = String(v); }
    if (caption) caption.textContent = captionOf(v);
    if (label) {
      label.textContent = following
        ? "Showing the latest position (move " + latest + " of " + latest + "). Use ◀ ▶, the slider or the arrow keys."
        : "Replay: move " + v + " of " + latest + ". » goes back to the latest.";
    }
    if (!steps) loadSteps();
  }

  let stepsLoading = false;
  function loadSteps() {
    if (stepsLoading) return;
    stepsLoading = true;
    fetch(base + "/state.json", { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((data) => { if (data) { steps = data.steps; if (caption) caption.textContent = captionOf(shown); } })
      .catch(() => {})
      .finally(() => { stepsLoading = false; });
  }

  function bind(id, fn) { const el = $(id); if (el) el.addEventListener("click", fn); }
  bind("replay-first", () => show(0));
  bind("replay-prev", () => show(shown - 1));
  bind("replay-next", () => show(shown + 1));
  bind("replay-last", () => show(latest));
  if (slider) slider.addEventListener("input", () => show(Number(slider.value), true));
  document.addEventListener("keydown", (e) => {
    if (!board || e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" && e.target !== slider) return;
    let v = null;
    if (e.key === "ArrowLeft") v = shown - 1;
    else if (e.key === "ArrowRight") v = shown + 1;
    else if (e.key === "Home") v = 0;
    else if (e.key === "End") v = latest;
    if (v === null) return;
    e.preventDefault();
    show(v);
  });

  // -- live ------------------------------------------------------------------------------
  function update(data) {
    const before = latest;
    latest = data.version;
    steps = data.steps;
    body.dataset.version = String(latest);
    body.dataset.status = data.status;
    Object.entries(data.parts).forEach(([id, html]) => {
      const el = $(id);
      if (el) el.innerHTML = html;       // written and escaped by the server
    });
    localTimes(document);
    const fresh = steps.filter((s) => s.v > before);
    document.querySelectorAll("#log-list li.turn").forEach((li) => {
      if (Number(li.dataset.last) > before) li.classList.add("new");
    });
    const changed = $("changed");
    if (changed && fresh.length) {
      const last = fresh[fresh.length - 1];
      changed.textContent = (fresh.length === 1 ? "New move: " : fresh.length + " new moves; the last: ")
        + last.lines.join(" ");
      changed.hidden = false;
    }
    if (following || shown > latest) show(latest);
    else show(shown);
    if (data.status !== "active") {
      const live = $("live");
      if (live) live.textContent = "";
    }
  }

  function refresh() {
    return fetch(base + "/state.json", { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((data) => { if (data && data.version !== latest || data && data.status !== body.dataset.status) update(data); })
      .catch(() => {});
  }

  if (typeof EventSource === "function" && body.dataset.status !== "finished"
      && body.dataset.status !== "aborted") {
    const stream = new EventSource(base + "/events");
    const onVersion = (e) => {
      let info = null;
      try { info = JSON.parse(e.data); } catch (err) { return; }
      if (info.version !== latest || info.status !== body.dataset.status) refresh();
    };
    stream.addEventListener("hello", onVersion);
    stream.addEventListener("move", onVersion);
    stream.addEventListener("gone", () => { stream.close(); location.reload(); });
    stream.onerror = () => { const live = $("live"); if (live) live.dataset.offline = "1"; };
    stream.onopen = () => { const live = $("live"); if (live) delete live.dataset.offline; };
    window.warhostStream = stream;
    // A page left for another (and kept in the back/forward cache, as phones do) lets go
    // of its stream; coming back to it reloads, so it is live and up to date again.
    window.addEventListener("pagehide", () => stream.close());
    window.addEventListener("pageshow", (e) => { if (e.persisted) location.reload(); });
  }

  localTimes(document);
  if (caption && latest > 0) loadSteps();
})();
