// agentctx dashboard. Every value from the store is untrusted: it reaches the page only as text nodes
// (h() below), never as HTML. The token arrives in the URL fragment and is moved into sessionStorage at once.
"use strict";
(() => {
  const TOKEN_KEY = "agentctx-token";
  const PAGE = 50;
  const SEARCH_PAGE = 10;  // as `agentctx search` (its default --limit); pages go on to its 50 at most
  const AGENTS = { claude: "Claude Code", codex: "Codex CLI", gemini: "Gemini CLI" };  // agents/__init__.py LABELS
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
    const m = location.hash.match(/(?:^#|&)token=([^&]+)/);
    if (m) {
      state.token = decodeURIComponent(m[1]);
      sessionStorage.setItem(TOKEN_KEY, state.token);
      // Out of the address bar and out of history: the entry holding the token is replaced, not pushed.
      history.replaceState(null, "", location.pathname + "#/records");
    } else {
      state.token = sessionStorage.getItem(TOKEN_KEY);
    }
  }
  function projectLabel(p) {
    if (p.id === state.meta.project.id) return `${state.meta.project.name} (this project)`;
    if (p.id === state.meta.global_id) return "Global (personal preferences)";
    return `project ${p.id.slice(0, 12)}…`;
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
      onclick: () => go(`#/record/${r.id}`), onkeydown: (e) => { if (e.key === "Enter") go(`#/record/${r.id}`); } },
      h("td", { class: "title" }, h("a", { href: `#/record/${r.id}` }, r.title), h("span", { class: "sum" }, r.summary),
        f.explain && r.relevance !== undefined ? h("span", { class: "explain" },
          `score ${r.score} · relevance ${r.relevance}`) : null),
      h("td", {}, chips(r)), h("td", { class: "hide-narrow" }, r.source), h("td", { class: "hide-narrow" }, day(r.recorded_at))));
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
    return h("li", { class: c.injected ? "hit" : "miss" }, `${c.injected ? "injected" : "not injected"} · p ${p3(c.p)}`,
      c.threshold !== undefined && c.threshold !== null ? ` (threshold ${p3(c.threshold)})` : "", " · ",
      `[${c.type || "?"}] `, c.id ? h("a", { href: `#/record/${c.id}` }, c.title || c.id) : (c.title || "?"),
      c.reason ? h("span", { class: "muted" }, ` — ${c.reason}`) : null);
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
  function rationale(body) {
    const i = body.lastIndexOf("\n\nRationale: ");
    return i >= 0 ? body.slice(i + 13) : null;
  }
  async function viewRecord(id) {
    mount(h("p", { class: "muted" }, "Loading…"));
    let d;
    try { d = await api("GET", `/api/records/${encodeURIComponent(id)}`); } catch (e) {
      mount(h("p", { role: "alert" }, e.message), h("a", { href: "#/records" }, "Back to records")); return;
    }
    const r = d.record;
    const meta = h("dl", { class: "meta" },
      [["id", r.id], ["project", r.project_id], ["type", `${r.type} (${r.scope})`],
        ["confidence", r.confidence + (r.reinforce_count ? ` (seen ${r.reinforce_count}× more)` : "") + (r.confidence === "team" ? " (from the team file: a teammate's entry, not yours)" : "")],
        ["source", r.source], ["valid from", when(r.valid_from)], ["recorded", when(r.recorded_at)],
        ["superseded", r.superseded_at ? `${when(r.superseded_at)} by ${r.superseded_by}` : "no (current)"],
        ["read", `${r.access_count} times`]].map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
      r.session_id ? [h("dt", {}, "session"), h("dd", {}, h("a", { href: `#/session/${r.session_id}` }, r.session_id),
        d.agent ? ` (${AGENTS[d.agent] || d.agent})` : "")] : null);
    const actions = h("div", { class: "actions", id: "actions" });
    const card = h("section", { class: "card" }, h("h2", { id: "record-title" }, r.title), h("p", {}, chips(r)),
      h("div", { class: "body", id: "record-body" }, r.body),
      d.evidence ? h("blockquote", { class: "evidence", id: "evidence" }, h("span", { class: "muted" }, "In the developer's words: "), d.evidence) : null,
      meta, actions);
    if (r.current) {
      append(actions, [
        h("button", { class: "primary", id: "edit", onclick: () => showEdit(r, card) }, "Edit (supersede)"),
        r.confidence !== "explicit" ? h("button", { id: "confirm", onclick: () => act(r, "confirm", {}, "Confirmed: now explicit") }, "Confirm") : null,
        h("button", { id: "pin", onclick: () => act(r, "pin", { pinned: !r.pinned }, r.pinned ? "Unpinned" : "Pinned") }, r.pinned ? "Unpin" : "Pin")]);
    } else {
      const headId = d.history[d.history.length - 1].id;
      actions.append(h("a", { href: `#/record/${headId}` }, "Go to the current version"));
    }
    actions.append(h("button", { class: "danger", id: "delete", onclick: () => askDelete(r, actions) }, "Delete…"));
    const timeline = h("ol", { class: "timeline", id: "timeline" }, d.history.map((v) => h("li", { class: v.id === r.id ? "cur" : "" },
      h("a", { href: `#/record/${v.id}` }, v.title), " ", h("span", { class: `chip ${v.confidence}` }, v.confidence),
      v.current ? h("span", { class: "chip explicit" }, "current") : h("span", { class: "chip superseded" }, "superseded"),
      h("div", { class: "muted" }, `valid from ${when(v.valid_from)} · recorded ${when(v.recorded_at)} · by ${v.source}`
        + (v.superseded_at ? ` · superseded ${when(v.superseded_at)}` : "")),
      rationale(v.body) ? h("div", {}, "Why: ", rationale(v.body)) : null)));
    const related = h("section", { class: "card" }, h("h3", {}, "Related"),
      d.entities.length ? h("p", {}, d.entities.map((e) => h("span", { class: "chip" }, `${e.kind}: ${e.name}`))) : h("p", { class: "muted" }, "No linked files or branches."),
      d.linked.length ? h("ul", {}, d.linked.map((l) => h("li", {}, `${l.rel}: `, h("a", { href: `#/record/${l.id}` }, l.title)))) : null,
      h("h3", {}, "Injected"),
      d.appearances.length ? h("ul", {}, d.appearances.map((a) => h("li", {}, `${when(a.at)} · ${a.event} · `,
        a.session_id ? h("a", { href: `#/session/${a.session_id}` }, a.session_id) : "no session"))) : h("p", { class: "muted" }, "Never injected yet."));
    mount(h("p", {}, h("a", { href: "#/records" }, "← Records")), card,
      h("div", { class: "grid2" }, h("section", { class: "card" }, h("h3", {}, "History"), timeline), related));
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
        go(`#/record/${res.new.id}`);
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
  async function viewSessions() {
    mount(h("p", { class: "muted" }, "Loading…"));
    let d;
    try { d = await api("GET", "/api/sessions?" + qs({ project: state.project, limit: 100 })); } catch (e) { mount(h("p", { role: "alert" }, e.message)); return; }
    if (!d.items.length) { mount(h("h2", {}, "Sessions"), h("p", { class: "muted" }, "No sessions recorded for this project yet.")); return; }
    mount(h("h2", {}, "Sessions"), h("table", {}, h("thead", {}, h("tr", {}, ["Started", "Agent", "Ended", "Injections", "Tokens", "Records written", "Extraction"].map((t, i) =>
      h("th", { class: i === 2 || i === 6 ? "hide-narrow" : "" }, t)))),
    h("tbody", {}, d.items.map((s) => h("tr", { class: "row", tabindex: "0", onclick: () => go(`#/session/${s.session_id}`),
      onkeydown: (e) => { if (e.key === "Enter") go(`#/session/${s.session_id}`); } },
      h("td", {}, h("a", { href: `#/session/${s.session_id}` }, when(s.started_at))), h("td", {}, AGENTS[s.agent] || s.agent || "—"),
      h("td", { class: "hide-narrow" }, when(s.ended_at)),
      h("td", {}, s.injections), h("td", {}, s.tokens_injected), h("td", {}, s.records_written),
      h("td", { class: "hide-narrow" }, `$${s.extraction_cost_usd.toFixed(4)}`))))));
  }
  async function viewSession(id) {
    let d;
    try { d = await api("GET", `/api/sessions/${encodeURIComponent(id)}`); } catch (e) { mount(h("p", { role: "alert" }, e.message)); return; }
    mount(h("p", {}, h("a", { href: "#/sessions" }, "← Sessions")),
      h("section", { class: "card" }, h("h2", {}, `Session ${d.session_id}`),
        h("dl", { class: "meta" }, [["agent", AGENTS[d.agent] || d.agent || "—"], ["started", when(d.started_at)], ["ended", when(d.ended_at)], ["tokens injected", d.tokens_injected],
          ["extraction cost", d.extraction_cost_usd === undefined ? "—" : `$${d.extraction_cost_usd.toFixed(4)}`]].map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]))),
      h("section", { class: "card" }, h("h3", {}, "What was injected, and why"),
        d.injections.length ? h("ol", {}, d.injections.map((i) => h("li", {}, `${when(i.at)} · ${i.event} · ${i.tokens} tokens`,
          i.prompt_hash ? ` · prompt ${i.prompt_hash}` : "",
          h("ul", {}, i.records.map((x) => h("li", {}, x.score === null ? "" : `relevance ${x.score} · `, `[${x.type || "?"}] `,
            h("a", { href: `#/record/${x.id}` }, x.title)))),
          i.near_misses && i.near_misses.length ? h("div", { class: "explain" }, "Near misses" +
            (i.threshold !== null && i.threshold !== undefined ? ` (threshold ${i.threshold})` : "") + ":",
            h("ul", {}, i.near_misses.map(candidate))) : null))) : h("p", { class: "muted" }, "Nothing was injected.")),
      d.uninjected_prompts && d.uninjected_prompts.length ? h("section", { class: "card" },
        h("h3", {}, "Prompts that injected nothing, and their best candidates"),
        h("ol", {}, d.uninjected_prompts.map((u) => h("li", {}, `${when(u.at)} · prompt ${u.prompt_hash} · ${u.prompt_chars} chars · ` +
          `${u.prompt_class}, threshold ${u.threshold}`, h("ul", {}, u.candidates.map(candidate)))))) : null,
      h("section", { class: "card" }, h("h3", {}, "What this session wrote"),
        d.written.length ? h("ul", {}, d.written.map((r) => h("li", {}, chips(r), h("a", { href: `#/record/${r.id}` }, r.title)))) : h("p", { class: "muted" }, "No records.")));
  }

  // ---- drift ------------------------------------------------------------------------------------------------
  async function viewDrift() {
    mount(h("p", { class: "muted" }, "Checking CLAUDE.md…"));
    let d;
    try { d = await api("GET", "/api/drift?" + qs({ project: state.project === state.meta.project.id ? "" : state.project })); } catch (e) {
      mount(h("h2", {}, "CLAUDE.md drift"), h("p", { role: "alert" }, e.message)); return;
    }
    const list = (items) => h("ul", {}, items.map((m) => h("li", {}, h("a", { href: `#/record/${m.id}` }, m.title || m.id),
      m.line ? h("span", { class: "muted" }, ` — CLAUDE.md: ${m.line}`) : null)));
    const diff = h("pre", { class: "diff", id: "diff" }, (d.proposed_diff || "").split("\n").map((line) =>
      h("span", { class: line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : "" }, line + "\n")));
    const apply = h("div", { class: "actions" });
    if (d.proposed_diff) {
      apply.append(h("button", { class: "primary", id: "apply", onclick: () => {
        apply.replaceChildren(`Write this change to ${d.target}? A backup is kept.`,
          h("button", { class: "primary", id: "apply-yes", onclick: async () => {
            try { const res = await api("POST", "/api/drift/apply", { confirm: true, base_sha: d.base_sha });
              flash(`Updated ${res.target}` + (res.backup ? ` (backup: ${res.backup})` : "")); viewDrift(); } catch (e) { flash(e.message, true); }
          } }, "Apply"), h("button", { onclick: () => viewDrift() }, "Cancel"));
      } }, "Apply to CLAUDE.md…"));
    }
    mount(h("h2", {}, "CLAUDE.md drift"),
      h("p", { class: "muted" }, d.files.length ? `Read: ${d.files.join(", ")}` : "No CLAUDE.md found for this project."),
      h("div", { class: "grid2" }, h("section", { class: "card" }, h("h3", {}, `Missing from CLAUDE.md (${d.missing.length})`), d.missing.length ? list(d.missing) : h("p", { class: "muted" }, "None.")),
        h("section", { class: "card" }, h("h3", {}, `Stated but superseded (${d.contradicted.length})`), d.contradicted.length ? list(d.contradicted) : h("p", { class: "muted" }, "None."))),
      h("section", { class: "card" }, h("h3", {}, "Proposed change"), d.proposed_diff ? diff : h("p", { class: "muted" }, "Nothing to change."), apply));
  }

  // ---- graph ------------------------------------------------------------------------------------------------
  const COLORS = { decision: "#2d5bd7", convention: "#7b3fc4", preference: "#c43f8e", discovery: "#0f8a8a",
    bugfix: "#b5460f", handover: "#6a7385", profile: "#1f7a3e", file: "#d9a400", branch: "#5a5a5a", symbol: "#9aa3b5",
    package: "#9aa3b5", module: "#9aa3b5" };
  async function viewGraph() {
    mount(h("p", { class: "muted" }, "Loading graph…"));
    let d;
    try { d = await api("GET", "/api/graph?" + qs({ project: state.project, limit: 300 })); } catch (e) { mount(h("p", { role: "alert" }, e.message)); return; }
    if (!d.nodes.length) { mount(h("h2", {}, "Graph"), h("p", { class: "muted" }, "No records yet.")); return; }
    const W = 1000, H = 640;
    const pos = window.AgentctxGraph.layout(d.nodes.map((n) => n.id), d.links.map((l) => [l.source, l.target]), W, H);
    const NS = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("class", "graph");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `${d.nodes.length} nodes, ${d.links.length} links`);
    for (const l of d.links) {
      const a = pos[l.source], b = pos[l.target];
      if (!a || !b) continue;
      const line = document.createElementNS(NS, "line");
      line.setAttribute("x1", a[0]); line.setAttribute("y1", a[1]); line.setAttribute("x2", b[0]); line.setAttribute("y2", b[1]);
      svg.appendChild(line);
    }
    for (const n of d.nodes) {
      const p = pos[n.id];
      const g = document.createElementNS(NS, "g");
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("cx", p[0]); c.setAttribute("cy", p[1]); c.setAttribute("r", n.kind === "record" ? 7 : 5);
      c.setAttribute("fill", COLORS[n.type || n.kind] || "#999");
      const t = document.createElementNS(NS, "title");
      t.textContent = `${n.type || n.kind}: ${n.label}`;
      c.appendChild(t);
      g.appendChild(c);
      if (n.kind !== "record") {
        const label = document.createElementNS(NS, "text");
        label.setAttribute("x", p[0] + 7); label.setAttribute("y", p[1] + 3);
        label.textContent = n.label.length > 28 ? "…" + n.label.slice(-27) : n.label;
        g.appendChild(label);
      } else {
        g.setAttribute("tabindex", "0");
        g.setAttribute("data-id", n.id);
        g.addEventListener("click", () => go(`#/record/${n.id}`));
        g.addEventListener("keydown", (e) => { if (e.key === "Enter") go(`#/record/${n.id}`); });
      }
      svg.appendChild(g);
    }
    const legend = h("div", { class: "legend" }, Object.entries(COLORS).slice(0, 9).map(([k, v]) => {
      const i = h("i", {}); i.style.background = v; return h("span", {}, i, k);
    }));
    mount(h("h2", {}, "Graph"), h("p", { class: "muted" }, `${d.nodes.length} nodes · ${d.links.length} links · newest 300 current records with their files and branches. Click a record to open it.`), legend, svg);
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
    mount(h("h2", {}, "Overview"), h("p", { class: "muted", id: "extraction-state" }, exLine), h("div", { class: "grid2" },
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
    if (view === "record" && arg) return viewRecord(arg);
    if (view === "session" && arg) return viewSession(arg);
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
      if (/^#\/(record|session)\//.test(location.hash)) history.back();
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
