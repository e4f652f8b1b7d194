// agentctx dashboard. Every value from the store is untrusted: it reaches the page only as text nodes
// (h() below), never as HTML. The token arrives in the URL fragment and is moved into sessionStorage at once.
"use strict";
(() => {
  const TOKEN_KEY = "agentctx-token";
  const PAGE = 50;
  const SEARCH_PAGE = 10;  // as `agentctx search` (its default --limit); pages go on to its 50 at most
  const AGENTS = { claude: "Claude Code", codex: "Codex CLI", gemini: "Gemini CLI", copilot: "Copilot CLI" };  // agents/__init__.py LABELS
  const pageSize = () => (state.filters.q ? SEARCH_PAGE : PAGE);
  const state = { token: null, meta: null, project: null, filters: { q: "", type: "", confidence: "", source: "",
    pinned: "", superseded: "exclude", explain: false }, offset: 0, sel: -1 };

  // ---- DOM, text only -------------------------------------------------------------------------------------
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "class") el.className = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    append(el, children);
    return el;
  }
  function append(el, children) {
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }
  const $ = (sel) => document.querySelector(sel);
  function mount(...children) {
    const main = $("#main");
    main.replaceChildren();
    append(main, children);
  }
  function flash(text, err) {
    const box = h("div", { class: err ? "msg err" : "msg", role: err ? "alert" : null }, text);
    $("#flash").appendChild(box);
    setTimeout(() => box.remove(), err ? 8000 : 4000);
  }
  const day = (iso) => (iso || "").slice(0, 10);
  // Links to one record or session: ids are the store's (a session id is Claude Code's), encoded as a path segment.
  const recordHref = (id) => `#/records/${encodeURIComponent(id)}`;
  const sessionHref = (id) => `#/sessions/${encodeURIComponent(id)}`;
  const when = (iso) => (iso ? iso.replace("T", " ").replace(/\.\d+/, "").replace("+00:00", "Z") : "—");

  // ---- API --------------------------------------------------------------------------------------------------
  async function api(method, path, body) {
    const init = { method, headers: { "X-Agentctx-Token": state.token || "" }, cache: "no-store",
      credentials: "omit" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const err = new Error((data && data.error) || `HTTP ${res.status}`);
      err.status = res.status;
      throw err;
    }
    return data;
  }
  function qs(params) {
    const u = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== "" && v !== null && v !== undefined) u.set(k, v);
    return u.toString();
  }

  // ---- chrome -----------------------------------------------------------------------------------------------
  function takeToken() {
    // The fragment is `token=T`, or a view and the token joined by `&` in either order (`#/sessions/ID&token=T`):
    // a deep link opened in a fresh tab, whose sessionStorage holds no token yet, still lands on its view.
    const parts = location.hash.replace(/^#/, "").split("&");
    const tok = parts.find((p) => p.startsWith("token="));
    if (tok) {
      state.token = decodeURIComponent(tok.slice(6));
      sessionStorage.setItem(TOKEN_KEY, state.token);
      const view = parts.find((p) => p.startsWith("/")) || "/records";
      // Out of the address bar and out of history: the entry holding the token is replaced, not pushed.
      history.replaceState(null, "", location.pathname + "#" + view);
    } else {
      state.token = sessionStorage.getItem(TOKEN_KEY);
    }
  }
  // A namespace as a person knows it: the store holds a hash of the remote; /api/meta names the projects it can.
  function projectName(id) {
    const m = state.meta;
    if (id === m.project.id) return m.project.name;
    if (id === m.global_id) return "Global (personal preferences)";
    const p = m.projects.find((x) => x.id === id);
    return p && p.name ? p.name : `project ${id.slice(0, 12)}…`;
  }
  // Capture names a file by its absolute path: within the opened project, show it from the project's root.
  function displayPath(name) {
    const root = state.meta.project.root.replace(/\/+$/, "") + "/";
    return name.startsWith(root) ? name.slice(root.length) : name;
  }
  function projectLabel(p) {
    return p.id === state.meta.project.id ? `${projectName(p.id)} (this project)` : projectName(p.id);
  }
  function fillProjects() {
    const sel = $("#project");
    sel.replaceChildren();
    const seen = new Set();
    const add = (id, label) => { if (!seen.has(id)) { seen.add(id); sel.appendChild(h("option", { value: id }, label)); } };
    add(state.meta.project.id, `${state.meta.project.name} (this project)`);
    for (const p of state.meta.projects) add(p.id, `${projectLabel(p)} · ${p.current} records`);
    add(state.meta.global_id, "Global (personal preferences)");
    add("_all", "All projects");
    sel.value = state.project;
    sel.onchange = () => { state.project = sel.value; state.offset = 0; route(); };
  }

  // ---- records --------------------------------------------------------------------------------------------
  function select(name, values, current, label) {
    const s = h("select", { name, "aria-label": label },
      h("option", { value: "" }, `any ${label}`), values.map((v) => h("option", { value: v }, v)));
    s.value = current;
    s.addEventListener("change", () => { state.filters[name] = s.value; state.offset = 0; loadRecords(); });
    return h("label", {}, s);
  }
  function chips(r) {
    return [h("span", { class: "chip" }, r.type),
      h("span", { class: `chip ${r.confidence}`, title: r.confidence === "team" ? "from a teammate's .agentctx/context.md" : "" }, r.confidence === "team" ? "team file" : r.confidence),
      r.pinned ? h("span", { class: "chip" }, "pinned") : null,
      r.current === false ? h("span", { class: "chip superseded" }, "superseded") : null];
  }
  function viewRecords() {
    const f = state.filters;
    const q = h("input", { type: "search", id: "q", name: "q", placeholder: "Search (same ranking as agentctx search)",
      value: f.q, "aria-label": "Search records" });
    const form = h("form", { class: "toolbar", role: "search", onsubmit: (e) => {
      e.preventDefault(); f.q = q.value.trim(); state.offset = 0; loadRecords(); } },
      q, h("button", { type: "submit", class: "primary" }, "Search"),
      h("label", {}, h("input", { type: "checkbox", id: "explain", checked: f.explain,
        onchange: (e) => { f.explain = e.target.checked; loadRecords(); } }), " explain"));
    const pinned = h("select", { name: "pinned", "aria-label": "pinned" },
      h("option", { value: "" }, "pinned or not"), h("option", { value: "1" }, "pinned"), h("option", { value: "0" }, "not pinned"));
    pinned.value = f.pinned;
    pinned.addEventListener("change", () => { f.pinned = pinned.value; state.offset = 0; loadRecords(); });
    const sup = h("select", { name: "superseded", "aria-label": "superseded" },
      h("option", { value: "exclude" }, "current only"), h("option", { value: "include" }, "with superseded"),
      h("option", { value: "only" }, "superseded only"));
    sup.value = f.superseded;
    sup.addEventListener("change", () => { f.superseded = sup.value; state.offset = 0; loadRecords(); });
    const m = state.meta;
    mount(form, h("div", { class: "filters" }, select("type", m.types, f.type, "type"),
      select("confidence", m.confidences, f.confidence, "confidence"), select("source", m.sources, f.source, "source"),
      h("label", {}, pinned), h("label", {}, sup)),
    h("div", { id: "list" }, h("p", { class: "muted" }, "Loading…")));
    loadRecords();
  }
  async function loadRecords() {
    const f = state.filters;
    const list = $("#list");
    if (!list) return;
    let data;
    try {
      data = await api("GET", "/api/records?" + qs({ project: state.project, q: f.q, type: f.type,
        confidence: f.confidence, source: f.source, pinned: f.pinned, superseded: f.superseded,
        offset: state.offset, limit: pageSize() }));
    } catch (e) { list.replaceChildren(h("p", { role: "alert" }, e.message)); return; }
    state.sel = -1;
    const rows = data.items.map((r) => h("tr", { class: "row", tabindex: "0", "data-id": r.id,
      onclick: () => go(recordHref(r.id)), onkeydown: (e) => { if (e.key === "Enter") go(recordHref(r.id)); } },
      h("td", { class: "title" }, h("a", { href: recordHref(r.id) }, r.title), h("span", { class: "sum" }, r.summary),
        f.explain && r.relevance !== undefined ? h("span", { class: "explain" },
          `score ${r.score} · relevance ${r.relevance}`) : null),
      h("td", {}, chips(r), state.project === "_all" ? h("span", { class: "chip", title: r.project_id }, projectName(r.project_id)) : null),
      h("td", { class: "hide-narrow" }, r.source), h("td", { class: "hide-narrow" }, day(r.recorded_at))));
    const explain = f.q && f.explain ? h("p", { class: "explain" },
      `terms: ${(data.terms || []).join(", ") || "none"}` + (data.degraded ? ` · degraded: ${data.degraded}` : "")) : null;
    const table = rows.length ? h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Record"), h("th", {}, "Kind"),
      h("th", { class: "hide-narrow" }, "Source"), h("th", { class: "hide-narrow" }, "Recorded"))), h("tbody", {}, rows))
      : h("p", { class: "muted" }, f.q ? "No record is relevant to this search." : "No records match these filters.");
    const end = Math.min(data.offset + data.items.length, data.total);
    const pager = h("div", { class: "pager" },
      h("button", { disabled: data.offset === 0, onclick: () => { state.offset = Math.max(0, state.offset - pageSize()); loadRecords(); } }, "← Previous"),
      h("span", { class: "muted", id: "count" }, data.total ? `${data.offset + 1}–${end} of ${data.total}${data.more ? "+" : ""}` : "0 records"),
      h("button", { disabled: end >= data.total && !data.more, onclick: () => { state.offset += pageSize(); loadRecords(); } }, "Next →"));
    list.replaceChildren(...[explain, table, pager].filter(Boolean));
    if (f.q && f.explain) loadDecision(f.q, list);
  }
  const p3 = (x) => (typeof x === "number" ? x.toFixed(3) : String(x));
  function candidate(c) {
    const what = c.injected ? "injected" : c.passed ? "already injected earlier in this session" : "not injected";
    return h("li", { class: c.injected ? "hit" : "miss" }, `${what} · p ${p3(c.p)}`,
      c.threshold !== undefined && c.threshold !== null ? ` (threshold ${p3(c.threshold)})` : "", " · ",
      `[${c.type || "?"}] `, c.id ? h("a", { href: recordHref(c.id) }, c.title || c.id) : (c.title || "?"),
      c.reason && !(c.passed && !c.injected) ? h("span", { class: "muted" }, ` — ${c.reason}`) : null);
  }
  let decisionSeq = 0;
  async function loadDecision(q, list) {
    const seq = ++decisionSeq;  // two list loads in flight (a search and a checkbox) must not leave two cards
    let d;
    try { d = await api("GET", "/api/explain?" + qs({ project: state.project, q })); } catch (e) { return; }
    if (seq !== decisionSeq || !list.isConnected || state.filters.q !== q) return;
    const n = d.candidates.filter((c) => c.injected).length;
    list.querySelectorAll("#decision").forEach((el) => el.remove());
    list.prepend(h("section", { class: "card explain", id: "decision" },
      h("h3", {}, "As a prompt (agentctx search --explain)"),
      h("p", {}, d.candidates.length ? `${d.prompt_class} prompt, threshold ${p3(d.threshold)}: the prompt hook would inject ` +
        `${n} of ${d.candidates.length} candidates` : "No candidates: the prompt hook would inject nothing."),
      d.candidates.length ? h("ol", {}, d.candidates.map(candidate)) : null));
  }

  // ---- record detail --------------------------------------------------------------------------------------
  async function viewRecord(id) {
    mount(h("p", { class: "muted" }, "Loading…"));
    let d;
    try { d = await api("GET", `/api/records/${encodeURIComponent(id)}`); } catch (e) {
      mount(h("p", { role: "alert" }, e.message), h("a", { href: "#/records" }, "Back to records")); return;
    }
    const r = d.record;
    const meta = h("dl", { class: "meta" },
      [["id", r.id], ["project", h("span", { id: "record-project", title: r.project_id }, projectName(r.project_id))],
        ["type", `${r.type} (${r.scope})`],
        ["confidence", r.confidence + (r.reinforce_count ? ` (seen ${r.reinforce_count}× more)` : "") + (r.confidence === "team" ? " (from the team file: a teammate's entry, not yours)" : "")],
        ["source", r.source], ["valid from", when(r.valid_from)], ["recorded", when(r.recorded_at)],
        ["superseded", r.superseded_at ? `${when(r.superseded_at)} by ${r.superseded_by}` : "no (current)"],
        ["read", `${r.access_count} times`]].map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
      r.session_id ? [h("dt", {}, "session"), h("dd", {}, h("a", { href: sessionHref(r.session_id) }, r.session_id),
        d.agent ? ` (${AGENTS[d.agent] || d.agent})` : "")] : null);
    const actions = h("div", { class: "actions", id: "actions" });
    const card = h("section", { class: "card" }, h("h2", { id: "record-title" }, r.title), h("p", {}, chips(r)),
      h("div", { class: "body", id: "record-body" }, r.body),
      Object.keys(d.marks || {}).length ? h("ul", { class: "marks", id: "marks" }, Object.entries(d.marks).map(([kind, m]) =>
        h("li", {}, h("strong", {}, kind === "unverified" ? "Code changed since it was recorded" : kind === "review" ? "Waiting for review" :
          kind === "expired" ? "Expired unused (agentctx review --yes --restore ID)" : "Merged"), `: ${m.reason} (${m.at.slice(0, 10)})`))) : null,
      d.evidence ? h("blockquote", { class: "evidence", id: "evidence" }, h("span", { class: "muted" }, "In the developer's words: "), d.evidence) : null,
      (d.provenance || []).length ? h("p", { class: "muted", id: "provenance" }, "From the agents' own memory: ",
        ...d.provenance.map((p, i) => h("span", {}, i ? "; " : "", `${p.agent}, ${p.path}:${p.line}` + (p.gone_at ? ` (removed ${p.gone_at})` : "")))) : null,
      askedAs(r), governs(r, d.uses), meta, actions);
    if (r.current) {
      append(actions, [
        h("button", { class: "primary", id: "edit", onclick: () => showEdit(r, card) }, "Edit (supersede)"),
        r.confidence !== "explicit" ? h("button", { id: "confirm", onclick: () => act(r, "confirm", {}, "Confirmed: now explicit") }, "Confirm") : null,
        h("button", { id: "pin", onclick: () => act(r, "pin", { pinned: !r.pinned }, r.pinned ? "Unpinned" : "Pinned") }, r.pinned ? "Unpin" : "Pin"),
        h("button", { id: "edit-asked", onclick: () => showAskedEdit(r, card) }, "Edit questions and aliases"),
        h("button", { id: "edit-anchors", onclick: () => showAnchorsEdit(r, card) }, "Edit what it governs"),
        r.guard_text ? h("button", { id: "guard-off", onclick: () => act(r, "guard", { off: true }, "No longer a guard") }, "Stop enforcing") : null]);
    } else {
      const headId = d.history[d.history.length - 1].id;
      actions.append(h("a", { href: recordHref(headId) }, "Go to the current version"));
    }
    actions.append(h("button", { class: "danger", id: "delete", onclick: () => askDelete(r, actions) }, "Delete…"));
    const timeline = h("ol", { class: "timeline", id: "timeline" }, d.history.map((v) => h("li", { class: v.id === r.id ? "cur" : "" },
      h("a", { href: recordHref(v.id) }, v.title), " ", h("span", { class: `chip ${v.confidence}` }, v.confidence),
      v.current ? h("span", { class: "chip explicit" }, "current") : h("span", { class: "chip superseded" }, "superseded"),
      h("div", { class: "muted" }, `valid from ${when(v.valid_from)} · recorded ${when(v.recorded_at)} · by ${v.source}`
        + (v.superseded_at ? ` · superseded ${when(v.superseded_at)}` : "")),
      v.rationale ? h("div", {}, "Why: ", v.rationale) : null)));
    const related = h("section", { class: "card" }, h("h3", {}, "Related"),
      d.entities.length ? h("p", {}, d.entities.map((e) => h("span", { class: "chip", title: e.name }, `${e.kind}: ${e.kind === "file" ? displayPath(e.name) : e.name}`))) : h("p", { class: "muted" }, "No linked files or branches."),
      d.linked.length ? h("ul", {}, d.linked.map((l) => h("li", {}, `${l.rel}: `, h("a", { href: recordHref(l.id) }, l.title)))) : null,
      h("h3", {}, "Injected"),
      d.appearances.length ? h("ul", {}, d.appearances.map((a) => h("li", {}, `${when(a.at)} · ${a.event} · `,
        a.session_id ? h("a", { href: sessionHref(a.session_id) }, a.session_id) : "no session"))) : h("p", { class: "muted" }, "Never injected yet."));
    mount(h("p", {}, h("a", { href: "#/records" }, "← Records")), card,
      h("div", { class: "grid2" }, h("section", { class: "card" }, h("h3", {}, "History"), timeline), related));
  }
  // How the record will be asked: searched as their own fields, never injected as its text.
  function askedAs(r) {
    const qs = r.questions || [], as = r.aliases || [];
    return h("section", { class: "asked", id: "asked" },
      h("h3", {}, "Asked as ", h("span", { class: "muted" }, "(searched, not injected)")),
      qs.length || as.length ? [
        qs.length ? h("ul", { id: "asked-questions" }, qs.map((q) => h("li", {}, q))) : null,
        as.length ? h("p", { id: "asked-aliases" }, "Also: ", as.join(", ")) : null]
        : h("p", { class: "muted", id: "asked-none" }, "No questions or aliases yet: the expansion pass adds them when an extraction backend is on (`agentctx expand`), or write them here."));
  }
  // What it governs (matched before an edit or a command, never injected as its text), whether it is a guard, and
  // what it earned: injected at prompts and at actions, followed, ignored, fetched, tokens (`agentctx stats`).
  function governs(r, uses) {
    const an = r.anchors || [];
    const u = uses || null;
    const followed = u ? u.followed + Math.max(0, u.stopped - u.ignored - u.followed) : 0;
    return h("section", { class: "asked", id: "governs" },
      h("h3", {}, "Governs ", h("span", { class: "muted" }, "(shown before a matching edit or command, not injected as text)")),
      an.length ? h("ul", { id: "anchors" }, an.map((a) => h("li", {}, h("code", {}, a))))
        : h("p", { class: "muted", id: "anchors-none" }, "Nothing: it reaches the agent at session start and with prompts only."),
      r.guard_text ? h("p", { id: "guard" }, h("span", { class: "chip superseded" }, "guard"), " enforced before an agent's action: ", h("code", {}, r.guard_text))
        : null,
      h("p", { id: "uses", class: u ? "" : "muted" }, u
        ? `In digests ${u.digests || 0}× · injected at prompts ${u.prompts}× · before actions ${u.actions}× · followed ${followed} · acted on ${u.acted} · ignored ${u.ignored} · fetched ${u.fetched} · ${u.tokens} tokens` + (followed || u.acted || u.fetched ? "" : " · only shown")
        : "Never injected yet."));
  }
  function showAnchorsEdit(r, card) {
    if (card.querySelector("form.anchors-edit")) return;
    const ta = h("textarea", { id: "edit-anchors-text", rows: "4" });
    ta.value = (r.anchors || []).join("\n");
    const form = h("form", { class: "edit anchors-edit", onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api("POST", `/api/records/${r.id}/anchors`, { anchors: ta.value.split("\n").map((x) => x.trim()).filter(Boolean) });
        flash("Saved: the agents see this record before touching these");
        viewRecord(r.id);
      } catch (err) { flash(err.message, true); }
    } }, h("label", { for: "edit-anchors-text" }, "One per line: a path or glob relative to the repository (src/payments/**), command:WORDS, symbol:NAME or tool:NAME (at most 24)"), ta,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "save-anchors" }, "Save"),
      h("button", { type: "button", onclick: () => form.remove() }, "Cancel")));
    card.appendChild(form);
    ta.focus();
  }
  function showAskedEdit(r, card) {
    if (card.querySelector("form.asked-edit")) return;
    const qs = h("textarea", { id: "edit-questions", rows: "5" });
    qs.value = (r.questions || []).join("\n");
    const as = h("textarea", { id: "edit-aliases", rows: "3" });
    as.value = (r.aliases || []).join("\n");
    const lines = (t) => t.value.split("\n").map((x) => x.trim()).filter(Boolean);
    const form = h("form", { class: "edit asked-edit", onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api("POST", `/api/records/${r.id}/asked`, { questions: lines(qs), aliases: lines(as) });
        flash("Saved: the record is searched by these from now on");
        viewRecord(r.id);
      } catch (err) { flash(err.message, true); }
    } }, h("label", { for: "edit-questions" }, "Questions it answers, one per line (at most 8)"), qs,
    h("label", { for: "edit-aliases" }, "Other names for what it is about, one per line (at most 16)"), as,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "save-asked" }, "Save"),
      h("button", { type: "button", onclick: () => form.remove() }, "Cancel")));
    card.appendChild(form);
    qs.focus();
  }
  function showEdit(r, card) {
    if (card.querySelector("form.edit")) return;
    const title = h("input", { type: "text", id: "edit-title", value: r.title, maxlength: "120" });
    const body = h("textarea", { id: "edit-body" });
    body.value = r.body.replace(/\n\nRationale: [\s\S]*$/, "");
    const why = h("input", { type: "text", id: "edit-rationale", placeholder: "why it changed (required)", required: true });
    const form = h("form", { class: "edit", onsubmit: async (e) => {
      e.preventDefault();
      try {
        const res = await api("POST", `/api/records/${r.id}/supersede`, { title: title.value, body: body.value, rationale: why.value });
        flash("Saved as a new version; the old one stays in the history");
        go(recordHref(res.new.id));
      } catch (err) { flash(err.message, true); }
    } }, h("label", { for: "edit-title" }, "Title"), title, h("label", { for: "edit-body" }, "Body"), body,
    h("label", { for: "edit-rationale" }, "Rationale"), why,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "save" }, "Save new version"),
      h("button", { type: "button", onclick: () => form.remove() }, "Cancel")));
    card.appendChild(form);
    title.focus();
  }
  async function act(r, what, body, done) {
    try { await api("POST", `/api/records/${r.id}/${what}`, body); flash(done); viewRecord(r.id); } catch (e) { flash(e.message, true); }
  }
  function askDelete(r, actions) {
    if ($("#confirm-delete")) return;
    const box = h("div", { class: "actions", id: "confirm-delete" }, "Delete this record for good? It leaves the store (not the history of others).",
      h("button", { class: "danger", id: "delete-yes", onclick: async () => {
        try { await api("POST", `/api/records/${r.id}/delete`, { confirm: true }); flash("Deleted"); go("#/records"); } catch (e) { flash(e.message, true); }
      } }, "Delete permanently"), h("button", { onclick: () => box.remove() }, "Cancel"));
    actions.after(box);
    box.querySelector("#delete-yes").focus();
  }

  // ---- sessions ---------------------------------------------------------------------------------------------
  const clip = (text, n) => (text.length > n ? text.slice(0, n - 1).trimEnd() + "…" : text);
  async function viewSessions() {
    mount(h("p", { class: "muted" }, "Loading…"));
    let d;
    try { d = await api("GET", "/api/sessions?" + qs({ project: state.project, limit: 100 })); } catch (e) { mount(h("p", { role: "alert" }, e.message)); return; }
    if (!d.items.length) { mount(h("h2", {}, "Sessions"), h("p", { class: "muted" }, "No sessions recorded for this project yet.")); return; }
    const narrow = new Set([3, 4, 6, 7]);
    mount(h("h2", {}, "Sessions"), h("table", {}, h("thead", {}, h("tr", {},
      ["Started", "Agent", "First request", "Prompts", "Injections", "Tokens", "Records written", "Extraction"].map((t, i) =>
        h("th", { class: narrow.has(i) ? "hide-narrow" : "" }, t)))),
    h("tbody", {}, d.items.map((s) => h("tr", { class: "row", tabindex: "0", onclick: () => go(sessionHref(s.session_id)),
      onkeydown: (e) => { if (e.key === "Enter") go(sessionHref(s.session_id)); } },
      h("td", { class: "when" }, h("a", { href: sessionHref(s.session_id) }, when(s.started_at)),
        s.ended_at ? null : h("span", { class: "chip" }, "open")),
      h("td", {}, AGENTS[s.agent] || s.agent || "—"),
      h("td", { class: "title" }, s.first_prompt ? clip(s.first_prompt.replace(/\s+/g, " "), 140)
        : h("span", { class: "muted" }, s.prompts ? "(all of it was <private>)" : "no prompt kept")),
      h("td", { class: "hide-narrow" }, s.prompts), h("td", { class: "hide-narrow" }, s.injections), h("td", {}, s.tokens_injected),
      h("td", { class: "hide-narrow" }, s.records_written),
      h("td", { class: "hide-narrow" }, `$${s.extraction_cost_usd.toFixed(4)}`))))));
  }
  function injectedList(records) {
    return h("ul", { class: "injected" }, records.map((x) => h("li", {},
      h("span", { class: "chip" }, x.type || "?"), h("a", { href: recordHref(x.id) }, x.title),
      x.score === null || x.score === undefined ? null : h("span", { class: "muted" }, ` · score ${Number(x.score).toFixed(2)}`))));
  }
  function timelineEntry(e) {
    const time = h("span", { class: "time" }, when(e.at).slice(11, 16) || "—");
    if (e.kind === "digest") {
      return h("li", { class: "digest" }, time, h("div", {},
        h("div", { class: "what" }, `Session start: the digest carried ${e.records.length} record${e.records.length === 1 ? "" : "s"} (${e.tokens} tokens)`),
        e.records.length ? injectedList(e.records) : null));
    }
    const asked = e.text === null || e.text === undefined
      ? h("p", { class: "muted" }, `Prompt ${e.prompt_hash || "?"}: its words were not kept (asked before agentctx kept prompts)`)
      : e.text ? h("blockquote", { class: "asked" }, e.text)
      : h("p", { class: "muted" }, "(the whole prompt was <private>: not kept)");
    // The store cuts a long prompt with "…"; a shorter text without it only lost its <private> spans (not a cut).
    const cut = e.text && e.text.endsWith("…") && e.chars > e.text.length
      ? h("div", { class: "muted" }, `the first ${e.text.length - 1} of ${e.chars} characters`) : null;
    const thr = e.threshold !== null && e.threshold !== undefined ? ` (threshold ${p3(e.threshold)})` : "";
    const outcome = e.records.length
      ? [h("div", { class: "what" }, `Injected ${e.records.length} record${e.records.length === 1 ? "" : "s"} (${e.tokens} tokens)`), injectedList(e.records),
        e.near_misses.length ? h("div", { class: "explain" }, `Also considered${thr}:`, h("ul", {}, e.near_misses.map(candidate))) : null]
      : [h("div", { class: "what muted" }, "Nothing injected" + (e.near_misses.some((c) => c.passed)
        ? ": what is relevant was injected earlier in this session" : e.near_misses.length
        ? ": no candidate reached the threshold" : e.logged ? "" : ": no record matched")),
        e.near_misses.length ? h("div", { class: "explain" }, `Its best candidates${thr}:`, h("ul", {}, e.near_misses.map(candidate))) : null];
    return h("li", { class: "prompt" }, time, h("div", {}, h("div", { class: "who" }, "You asked"), asked, cut, outcome));
  }
  async function viewSession(id) {
    let d;
    try { d = await api("GET", `/api/sessions/${encodeURIComponent(id)}`); } catch (e) { mount(h("p", { role: "alert" }, e.message)); return; }
    const day0 = day(d.started_at || (d.timeline[0] && d.timeline[0].at));
    mount(h("p", {}, h("a", { href: "#/sessions" }, "← Sessions")),
      h("section", { class: "card" }, h("h2", { id: "session-title" }, `Session ${d.session_id}`),
        h("dl", { class: "meta" }, [["agent", AGENTS[d.agent] || d.agent || "—"],
          ["project", d.project_id ? h("span", { title: d.project_id }, projectName(d.project_id)) : "—"],
          ["started", when(d.started_at)], ["ended", d.ended_at ? when(d.ended_at) : "still open"],
          ["prompts", d.prompts.length], ["tokens injected", d.tokens_injected],
          ["extraction cost", d.extraction_cost_usd === undefined ? "—" : `$${d.extraction_cost_usd.toFixed(4)}`]].map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]))),
      h("section", { class: "card" }, h("h3", {}, `What was asked, and what came with it${day0 ? " · " + day0 : ""}`),
        d.timeline.length ? h("ol", { class: "story", id: "timeline" }, d.timeline.map(timelineEntry))
          : h("p", { class: "muted" }, "Nothing was asked or injected in this session.")),
      h("section", { class: "card" }, h("h3", {}, "What this session wrote"),
        d.written.length ? h("ul", {}, d.written.map((r) => h("li", {}, chips(r), h("a", { href: recordHref(r.id) }, r.title)))) : h("p", { class: "muted" }, "No records.")));
  }

  // ---- drift ------------------------------------------------------------------------------------------------
  async function viewDrift(file) {
    file = file || state.driftFile || "CLAUDE.md";
    state.driftFile = file;
    mount(h("p", { class: "muted" }, `Checking ${file}…`));
    let d;
    try { d = await api("GET", "/api/drift?" + qs({ project: state.project === state.meta.project.id ? "" : state.project, file })); } catch (e) {
      mount(h("h2", {}, `${file} drift`), h("p", { role: "alert" }, e.message)); return;
    }
    const list = (items) => h("ul", {}, items.map((m) => h("li", {}, h("a", { href: recordHref(m.id) }, m.title || m.id),
      m.line ? h("span", { class: "muted" }, ` — ${file}: ${m.line}`) : null)));
    const diff = h("pre", { class: "diff", id: "diff" }, (d.proposed_diff || "").split("\n").map((line) =>
      h("span", { class: line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : "" }, line + "\n")));
    const apply = h("div", { class: "actions" });
    if (d.proposed_diff) {
      apply.append(h("button", { class: "primary", id: "apply", onclick: () => {
        apply.replaceChildren(`Write this change to ${d.target}? A backup is kept.`,
          h("button", { class: "primary", id: "apply-yes", onclick: async () => {
            try { const res = await api("POST", "/api/drift/apply", { confirm: true, base_sha: d.base_sha, file });
              flash(`Updated ${res.target}` + (res.backup ? ` (backup: ${res.backup})` : "")); viewDrift(file); } catch (e) { flash(e.message, true); }
          } }, "Apply"), h("button", { onclick: () => viewDrift(file) }, "Cancel"));
      } }, `Apply to ${file}…`));
    }
    // one tab per instruction file the repository has (AGENTS.md for Codex, GEMINI.md for Gemini CLI), as `sync`
    const tabs = (d.available || []).length > 1 ? h("p", { class: "actions", id: "drift-files" }, ...d.available.map((name) =>
      h("button", { class: name === file ? "primary" : "", onclick: () => viewDrift(name) }, name))) : null;
    mount(h("h2", {}, `${file} drift`), tabs,
      h("p", { class: "muted" }, d.files.length ? `Read: ${d.files.join(", ")}` : `No ${file} found for this project.`),
      h("div", { class: "grid2" }, h("section", { class: "card" }, h("h3", {}, `Missing from ${file} (${d.missing.length})`), d.missing.length ? list(d.missing) : h("p", { class: "muted" }, "None.")),
        h("section", { class: "card" }, h("h3", {}, `Stated but superseded (${d.contradicted.length})`), d.contradicted.length ? list(d.contradicted) : h("p", { class: "muted" }, "None."))),
      h("section", { class: "card" }, h("h3", {}, "Proposed change"), d.proposed_diff ? diff : h("p", { class: "muted" }, "Nothing to change."), apply));
  }

  // ---- graph ------------------------------------------------------------------------------------------------
  const COLORS = { decision: "#2d5bd7", convention: "#7b3fc4", preference: "#c43f8e", discovery: "#0f8a8a",
    bugfix: "#b5460f", handover: "#6a7385", profile: "#1f7a3e", file: "#d9a400", branch: "#5a5a5a", symbol: "#9aa3b5",
    package: "#9aa3b5", module: "#9aa3b5" };
  // What each kind of link means, in words (the store's rel types, SPEC §3.3).
  const RELS = { applies_to: "about a file or branch", derives_from: "similar records", supersedes: "supersedes",
    observed_in: "observed in", scoped_to: "scoped to" };
  const CHAR_W = 6.1;  // the width of an average character of the 11-pixel label font, for placing labels apart
  let graphData = null;
  async function viewGraph() {
    mount(h("p", { class: "muted" }, "Loading graph…"));
    try { graphData = await api("GET", "/api/graph?" + qs({ project: state.project, limit: 300 })); } catch (e) { mount(h("p", { role: "alert" }, e.message)); return; }
    if (!graphData.nodes.length) { mount(h("h2", {}, "Graph"), h("p", { class: "muted" }, "No records yet.")); return; }
    drawGraph(false);
  }
  function short(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }
  function drawGraph(withUnlinked) {
    const d = graphData;
    const degree = new Map();
    for (const l of d.links) for (const end of [l.source, l.target]) degree.set(end, (degree.get(end) || 0) + 1);
    // A record with no link says nothing in a graph: scattered around the edge, dozens of them hid the structure.
    const linkedOnly = !withUnlinked && d.links.length > 0;
    const nodes = linkedOnly ? d.nodes.filter((n) => degree.has(n.id)) : d.nodes;
    const hidden = d.nodes.length - nodes.length;
    // The drawing's units are the page's pixels (the box's width, 640 high; 420 in a narrow window): labels keep
    // their size, and the layout uses the whole width.
    const narrowWindow = window.matchMedia("(max-width: 720px)").matches;
    const W = Math.max(320, $("#main").clientWidth - 34), H = narrowWindow ? 420 : 640;
    const pos = window.AgentctxGraph.layout(nodes.map((n) => n.id), d.links.map((l) => [l.source, l.target]), W, H);
    const NS = "http://www.w3.org/2000/svg";
    const el = (tag, attrs) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      return e;
    };
    const svg = el("svg", { class: "graph", viewBox: `0 0 ${W} ${H}`, role: "group",
      "aria-label": `${nodes.length} nodes, ${d.links.length} links` });
    const lines = el("g", { class: "links" }), dots = el("g", { class: "nodes" });
    svg.append(lines, dots);
    const byNode = new Map();  // node id -> its lines and neighbours' groups, for the highlight
    const groups = new Map();
    for (const l of d.links) {
      const a = pos[l.source], b = pos[l.target];
      if (!a || !b) continue;
      const line = el("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: `rel-${l.rel in RELS ? l.rel : "other"}`,
        "data-rel": l.rel });
      const t = el("title", {}); t.textContent = RELS[l.rel] || l.rel; line.appendChild(t);
      lines.appendChild(line);
      for (const [me, other] of [[l.source, l.target], [l.target, l.source]]) {
        const e = byNode.get(me) || byNode.set(me, { lines: [], near: [] }).get(me);
        e.lines.push(line); e.near.push(other);
      }
    }
    // Nodes first, then every label above them all, each beside its node where it covers neither another label nor
    // a node: to the right, the left, above or below. Entities (few, the hubs) are placed first, then records by how
    // linked they are; a label with no free place shows on hover and focus, so the names shown never overlap.
    const labels = el("g", { class: "labels" });
    svg.appendChild(labels);
    const radius = (n) => (n.kind === "record" ? 6 : 7);
    const taken = nodes.map((n) => { const p = pos[n.id], r = radius(n) + 1; return [p[0] - r, p[1] - r, p[0] + r, p[1] + r]; });
    const clear = (b) => b[0] >= 0 && b[2] <= W && b[1] >= 0 && b[3] <= H &&
      !taken.some((q) => b[0] < q[2] && q[0] < b[2] && b[1] < q[3] && q[1] < b[3]);
    const order = [...nodes].sort((x, y) => (x.kind === "record") - (y.kind === "record") ||
      (degree.get(y.id) || 0) - (degree.get(x.id) || 0));
    const texts = new Map();
    for (const n of order) {
      const [x, y] = pos[n.id], r = radius(n);
      const path = n.kind === "file" ? displayPath(n.label) : n.label;
      const name = n.kind === "record" ? short(n.label, 34) : path.length > 34 ? "…" + path.slice(-33) : path;
      const w = name.length * (n.kind === "record" ? CHAR_W : CHAR_W + 0.6);  // entities' names are bold
      const spots = [[x + r + 3, y + 3.5, "start", [x + r + 2, y - 7, x + r + 4 + w, y + 5]],
        [x - r - 3, y + 3.5, "end", [x - r - 4 - w, y - 7, x - r - 2, y + 5]],
        [x, y - r - 4, "middle", [x - w / 2, y - r - 15, x + w / 2, y - r - 2]],
        [x, y + r + 12, "middle", [x - w / 2, y + r + 2, x + w / 2, y + r + 15]]];
      const spot = spots.find((sp) => clear(sp[3]));
      const [tx, ty, anchor, box] = spot || spots[0];
      const text = el("text", { x: tx, y: ty, "text-anchor": anchor, "data-for": n.id,
        class: (n.kind === "record" ? "" : "entity ") + (spot ? "" : "spare") });
      text.textContent = name;
      if (spot) taken.push(box);
      texts.set(n.id, text);
      labels.appendChild(text);
    }
    for (const n of nodes) {
      const [x, y] = pos[n.id], r = radius(n);
      const isRecord = n.kind === "record";
      const g = el("g", { class: isRecord ? "node record" : "node entity", tabindex: "0",
        "aria-label": `${n.type || n.kind}: ${n.label}` });
      g.appendChild(isRecord ? el("circle", { cx: x, cy: y, r, fill: COLORS[n.type] || "#999" })
        : el("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, rx: 2, fill: COLORS[n.kind] || "#999" }));
      const tip = el("title", {}); tip.textContent = `${n.type || n.kind}: ${n.label}`; g.appendChild(tip);
      const text = texts.get(n.id);
      if (isRecord) {
        g.setAttribute("data-id", n.id);
        for (const target of [g, text]) target.addEventListener("click", () => go(recordHref(n.id)));
        g.addEventListener("keydown", (e) => { if (e.key === "Enter") go(recordHref(n.id)); });
      }
      const lit = (on) => {
        const e = byNode.get(n.id);
        svg.classList.toggle("focus", on);
        for (const id of [n.id, ...(e ? e.near : [])]) {
          const ng = groups.get(id), nt = texts.get(id);
          if (ng) ng.classList.toggle("lit", on);
          if (nt) nt.classList.toggle("lit", on);
        }
        for (const line of e ? e.lines : []) line.classList.toggle("lit", on);
      };
      for (const target of [g, text]) {
        target.addEventListener("mouseenter", () => lit(true)); target.addEventListener("mouseleave", () => lit(false));
      }
      g.addEventListener("focus", () => lit(true)); g.addEventListener("blur", () => lit(false));
      groups.set(n.id, g);
      dots.appendChild(g);
    }
    const rels = [...new Set(d.links.map((l) => l.rel))];
    const swatch = (cls) => { const i = h("i", { class: cls }); return i; };
    const legend = h("div", { class: "legend", id: "graph-legend" },
      Object.entries(COLORS).slice(0, 9).map(([k, v]) => { const i = swatch(k === "file" || k === "branch" ? "sq" : ""); i.style.background = v; return h("span", {}, i, k); }),
      rels.map((rel) => h("span", {}, swatch(`line rel-${rel in RELS ? rel : "other"}`), `link: ${RELS[rel] || rel}`)));
    const toggle = hidden || withUnlinked ? h("label", {}, h("input", { type: "checkbox", id: "graph-unlinked", checked: withUnlinked,
      onchange: (e) => drawGraph(e.target.checked) }), ` show the ${withUnlinked ? "" : hidden + " "}records without links`) : null;
    mount(h("h2", {}, "Graph"), h("p", { class: "muted" }, `${nodes.length} nodes · ${d.links.length} links · the newest 300 current records ` +
      "with the files and branches they are about. Names that would overlap show on hover; click a record to open it."), toggle, legend, svg);
  }

  // ---- overview ---------------------------------------------------------------------------------------------
  function bars(entries, label, fmt) {
    const NS = "http://www.w3.org/2000/svg";
    const W = 420, H = 150, pad = 22;
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("class", "chart"); svg.setAttribute("viewBox", `0 0 ${W} ${H}`); svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
    const max = Math.max(1, ...entries.map((e) => e[1]));
    const bw = (W - 10) / Math.max(entries.length, 1);
    entries.forEach(([k, v], i) => {
      const hgt = (H - 2 * pad) * (v / max);
      const r = document.createElementNS(NS, "rect");
      r.setAttribute("x", 5 + i * bw + 2); r.setAttribute("width", Math.max(bw - 4, 1));
      r.setAttribute("y", H - pad - hgt); r.setAttribute("height", hgt);
      const t = document.createElementNS(NS, "title"); t.textContent = `${k}: ${fmt ? fmt(v) : v}`; r.appendChild(t);
      svg.appendChild(r);
      if (entries.length <= 12) {
        const tx = document.createElementNS(NS, "text");
        tx.setAttribute("x", 5 + i * bw + bw / 2); tx.setAttribute("y", H - 6); tx.setAttribute("text-anchor", "middle");
        tx.textContent = /^\d{4}-\d\d-\d\d$/.test(k) ? k.slice(5) : k.length > 12 ? k.slice(0, 11) + "…" : k; svg.appendChild(tx);
        const vx = document.createElementNS(NS, "text");
        vx.setAttribute("x", 5 + i * bw + bw / 2); vx.setAttribute("y", H - pad - hgt - 3); vx.setAttribute("text-anchor", "middle");
        vx.textContent = fmt ? fmt(v) : v; svg.appendChild(vx);
      }
    });
    return h("section", { class: "card" }, h("h3", {}, label), entries.length ? svg : h("p", { class: "muted" }, "No data yet."));
  }
  async function viewOverview() {
    let d;
    try { d = await api("GET", "/api/overview?" + qs({ project: state.project })); } catch (e) { mount(h("p", { role: "alert" }, e.message)); return; }
    const daily = d.daily;
    const ex = d.extraction || { backend: "off", reason: "", per_day: [] };
    const perDay = {};
    for (const r of ex.per_day || []) {
      const e = perDay[r.day] || (perDay[r.day] = { calls: 0, tokens: 0 });
      e.calls += r.calls; e.tokens += r.input_tokens + r.output_tokens;
    }
    const exDays = Object.keys(perDay).sort();
    const exLine = ex.backend === "off" ? `Extraction off: ${ex.reason}` :
      `Extraction through ${ex.backend === "claude-code" ? "your Claude Code CLI" : "the Messages API"} (${ex.reason})` +
      (ex.calls_per_hour_limit ? ` · at most ${ex.calls_per_hour_limit} calls an hour` : "") + (ex.paused ? ` · ${ex.paused}` : "");
    const own = (d.agent_memory || []).filter((a) => a.files.length || a.in_store.lines);
    const ownCard = h("section", { class: "card", id: "agent-memory" }, h("h3", {}, "Agents' own memory"),
      own.length ? h("table", {}, h("thead", {}, h("tr", {}, ...["Agent", "On", "Facts in its files", "Loaded every session",
        "Records from it", "Confirmed", "Not injected again", "Its own switch"].map((t) => h("th", {}, t)))),
        h("tbody", {}, ...own.map((a) => h("tr", {}, h("td", {}, a.label), h("td", {}, a.on ? "on" : "off"),
          h("td", {}, String(a.facts)), h("td", {}, String(a.loaded)), h("td", {}, String(a.in_store.records)),
          h("td", {}, String(a.in_store.confirmed)),
          h("td", {}, String(Object.values(a.not_injected_again).reduce((x, y) => x + y, 0))),
          h("td", { class: "muted" }, a.switch)))))
        : h("p", { class: "muted" }, "No agent has memory files of its own for this project."));
    let box = { items: [], expired: [] };
    try { box = await api("GET", "/api/inbox?" + qs({ project: state.project })); } catch (e) { /* the overview stands without it */ }
    const t = d.trust || { unverified: 0, review: 0, expired: 0, recently_expired: [] };
    const trustLine = `${t.unverified} unverified (their code changed) · ${t.review} waiting for review · ${t.expired} expired unused` +
      (t.expire_after_days ? ` (after ${t.expire_after_days} days)` : " (expiry off)");
    const link = (r) => h("a", { href: "#/records/" + encodeURIComponent(r.id) }, r.title);
    const needs = box.items.map((r) => h("li", {}, link(r), ` — ${r.note}`));
    const expired = box.expired.map((r) => h("li", {}, link(r), ` — ${r.note} (${r.at.slice(0, 10)}) `,
      h("button", { type: "button", onclick: async () => { try { await api("POST", `/api/records/${encodeURIComponent(r.id)}/restore`, {}); flash("restored"); viewOverview(); } catch (e) { flash(e.message, true); } } }, "Restore")));
    mount(h("h2", {}, "Overview"), h("p", { class: "muted", id: "extraction-state" }, exLine),
      h("p", { class: "muted", id: "trust-state" }, trustLine), ownCard,
      needs.length ? [h("h3", {}, "Needs you (confirm, correct or pin on the record's page)"), h("ul", { id: "inbox-list" }, ...needs)] : null,
      expired.length ? [h("h3", {}, "Expired unused"), h("ul", { id: "expired-list" }, ...expired)] : null,
      h("div", { class: "grid2" },
      bars(Object.entries(d.by_type), "Current records by type"),
      bars(Object.entries(d.by_confidence), "Current records by confidence"),
      bars(daily.map((r) => [r.day, r.tokens]), "Tokens injected per day"),
      bars(daily.map((r) => [r.day, r.cost_usd]), "Extraction cost per day (USD)", (v) => v.toFixed(3)),
      bars(daily.map((r) => [r.day, r.records]), "Records written per day"),
      bars(Object.entries(d.by_source), "Current records by source"),
      bars(exDays.map((k) => [k, perDay[k].calls]), "Extraction calls per day (all projects)"),
      bars(exDays.map((k) => [k, perDay[k].tokens]), "Extraction tokens per day (all projects)")));
  }

  // ---- routing and keys ----------------------------------------------------------------------------------
  function go(hash) { if (location.hash === hash) route(); else location.hash = hash; }
  function route() {
    const parts = location.hash.replace(/^#\/?/, "").split("/");
    const view = parts[0] || "records";
    for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.view === view || a.dataset.view === view + "s");
    const arg = parts[1] ? decodeURIComponent(parts[1]) : null;
    // `#/records/ID` and `#/sessions/ID` (as the API's paths); the singular forms are links older pages made.
    if ((view === "records" || view === "record") && arg) return viewRecord(arg);
    if ((view === "sessions" || view === "session") && arg) return viewSession(arg);
    if (view === "sessions") return viewSessions();
    if (view === "drift") return viewDrift();
    if (view === "graph") return viewGraph();
    if (view === "overview") return viewOverview();
    return viewRecords();
  }
  function onKey(e) {
    const tag = (e.target && e.target.tagName) || "";
    const typing = tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
    if (e.key === "Escape") {
      if (typing) { e.target.blur(); return; }
      if (/^#\/(records?|sessions?)\/./.test(location.hash)) history.back();
      return;
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "/") { const q = $("#q"); if (q) { e.preventDefault(); q.focus(); q.select(); } return; }
    if (e.key === "j" || e.key === "k") {
      const rows = [...document.querySelectorAll("tr.row")];
      if (!rows.length) return;
      state.sel = Math.max(0, Math.min(rows.length - 1, state.sel + (e.key === "j" ? 1 : -1)));
      rows.forEach((r, i) => r.classList.toggle("sel", i === state.sel));
      rows[state.sel].focus();
    }
  }

  async function start() {
    takeToken();
    document.addEventListener("keydown", onKey);
    if (!state.token) {
      mount(h("h2", {}, "Open the link agentctx ui printed"), h("p", {}, "This page needs the one-time token in the URL that `agentctx ui` prints in your terminal."));
      return;
    }
    try { state.meta = await api("GET", "/api/meta"); } catch (e) {
      mount(h("h2", {}, "Cannot reach the agentctx server"), h("p", { role: "alert" }, e.status === 401
        ? "The token is not valid for this server (it changes every time `agentctx ui` starts): open the new URL it printed."
        : e.message));
      return;
    }
    state.project = state.meta.project.id;
    $("#version").textContent = `agentctx ${state.meta.version}`;
    fillProjects();
    window.addEventListener("hashchange", route);
    route();
  }
  start();
})();
