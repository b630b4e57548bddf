/**
 * The web inspector served at `/` (SPEC §23.3): one static page, inline CSS
 * and JS, no framework, no external assets. It lists sessions; for one session it shows each
 * turn's text, the reasoning in a collapsible `<details>`, and per request the carriers each
 * replayed message kept, padded or dropped, with the reason. All model text is inserted with
 * `textContent` (never `innerHTML`), and the page holds no data itself: everything comes from
 * the authenticated `/v1/sessions` endpoints, so serving it without a token leaks nothing.
 * When the API answers 401 the page asks for the token, keeps it in `sessionStorage` and sends
 * it as `Authorization: Bearer`.
 */

const STYLE = `
:root{color-scheme:light dark;--line:#8884;--muted:#8a8a8a;--accent:#3b6fd8}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,sans-serif;display:grid;grid-template-columns:300px 1fr;height:100vh}
aside{border-right:1px solid var(--line);overflow:auto;padding:12px}
main{overflow:auto;padding:16px 24px}
h1{font-size:16px;margin:0 0 10px}h2{font-size:15px;margin:18px 0 8px}
ul{list-style:none;margin:0;padding:0}
#sessions button{width:100%;text-align:left;background:none;border:1px solid transparent;border-radius:6px;padding:6px 8px;cursor:pointer;color:inherit;font:inherit}
#sessions button:hover{border-color:var(--line)}#sessions button[aria-current=true]{border-color:var(--accent)}
.small{color:var(--muted);font-size:12px}
.turn{border:1px solid var(--line);border-radius:8px;padding:10px 12px;margin:10px 0}
.user{font-weight:600;white-space:pre-wrap}.answer{white-space:pre-wrap;margin-top:6px}
.tool{font-family:ui-monospace,monospace;font-size:12px;margin-top:6px;white-space:pre-wrap}
details.reasoning{margin-top:6px;border-left:3px solid var(--accent);padding-left:8px}
details pre{white-space:pre-wrap;margin:6px 0;font-size:12px}
table{border-collapse:collapse;width:100%;margin:6px 0 14px;font-size:12px}
th,td{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
form{margin:8px 0}input{font:inherit;padding:4px}.error{color:#c33}
.provider-drop{color:#c60;font-size:12px;margin-top:6px}tr.provider-drop td{background:#c601}
.route{font-family:ui-monospace,monospace;font-size:12px;margin:2px 0 4px}details.earlier{margin:-8px 0 14px;font-size:12px}
`;

const SCRIPT = `
'use strict';
const TOKEN_KEY = 'hermes-gateway-token';
const $ = (id) => document.getElementById(id);
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}
async function api(path, init) {
  const headers = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = 'Bearer ' + token;
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401) { $('token-form').hidden = false; throw new Error('a token is required'); }
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ? body.error.message : 'HTTP ' + response.status);
  return body;
}
function showError(error) { $('status').textContent = String(error.message || error); }
async function loadSessions() {
  $('status').textContent = '';
  try {
    const list = await api('/v1/sessions');
    $('token-form').hidden = true;
    const items = list.data.map((session) => el('li', {}, el('button', {
      'data-session-id': session.id, onclick: () => selectSession(session.id),
    }, el('div', { text: session.title || '(untitled)' }),
       el('div', { class: 'small', text: session.id + ' · ' + (session.model || '-') + ' · ' + session.message_count + ' messages' }))));
    $('sessions').replaceChildren(...items);
    if (!items.length) $('sessions').replaceChildren(el('li', { class: 'small', text: 'no sessions yet' }));
  } catch (error) { showError(error); }
}
function reasoningOf(message) {
  if (message.reasoning && message.reasoning.trim()) return message.reasoning;
  if (message.reasoning_content && message.reasoning_content.trim()) return message.reasoning_content;
  return '';
}
// SPEC §26.4: reasoning the provider dropped from the request (input_transformations), per answer.
function providerDropNote(message, index) {
  const drops = (message._input_transformations || []).filter((entry) => String(entry.type || '').endsWith('_dropped'));
  if (!drops.length) return null;
  const where = drops.map((entry) => (typeof entry.message === 'number' ? 'm' + entry.message : entry.path) + ' (' + entry.reason + ')');
  return el('div', { class: 'provider-drop', 'data-provider-drops': String(drops.length),
    text: 'm' + index + ' · the provider dropped ' + drops.length + ' thinking block(s) from the request: ' + where.join(', ') });
}
function isProviderDecision(decision) {
  return /^(dropped|let through) by the provider/.test(String(decision.reason || ''));
}
function renderTurns(messages) {
  const turns = [];
  let current = null;
  messages.forEach((message, index) => {
    if (message.role === 'user' || !current) { current = el('section', { class: 'turn', 'data-turn': String(turns.length + 1) }); turns.push(current); }
    const text = typeof message.content === 'string' ? message.content : message.content ? JSON.stringify(message.content) : '';
    if (message.role === 'user') current.append(el('div', { class: 'user', text: 'm' + index + ' · ' + text }));
    else if (message.role === 'system') current.append(el('div', { class: 'small', text: 'm' + index + ' · system: ' + text }));
    else if (message.role === 'tool') current.append(el('details', { class: 'tool' }, el('summary', { text: 'm' + index + ' · tool result ' + (message.tool_name || '') }), el('pre', { text: text })));
    else {
      const reasoning = reasoningOf(message);
      if (reasoning) current.append(el('details', { class: 'reasoning' }, el('summary', { text: 'm' + index + ' · reasoning (' + reasoning.length + ' chars)' }), el('pre', { text: reasoning })));
      for (const call of message.tool_calls || []) current.append(el('div', { class: 'tool', text: 'm' + index + ' · → ' + call.function.name + '(' + call.function.arguments + ')' }));
      if (text) current.append(el('div', { class: 'answer', text: text }));
      const drops = providerDropNote(message, index);
      if (drops) current.append(drops);
    }
  });
  return turns;
}
function decisionRow(decision, messages) {
  const role = messages[decision.messageIndex] ? messages[decision.messageIndex].role : '?';
  return el('tr', isProviderDecision(decision) ? { class: 'provider-drop' } : {}, el('td', { text: 'm' + decision.messageIndex + ' ' + role }), el('td', { text: decision.field }),
    el('td', { text: decision.action }), el('td', { text: decision.reason }),
    el('td', { text: decision.bytes === undefined ? '' : String(decision.bytes) }));
}
function decisionKey(decision) {
  return [decision.messageIndex, decision.field, decision.action, decision.reason, decision.bytes].join('\u0000');
}
// Each request replays every earlier message: the decisions the previous request of the same
// route already made are folded, so a request shows what is new (its newest messages, changes).
function splitDecisions(request, previous) {
  const seen = new Set(previous && previous.route_key === request.route_key ? previous.decisions.map(decisionKey) : []);
  const fresh = [], earlier = [];
  for (const decision of request.decisions) (seen.has(decisionKey(decision)) ? earlier : fresh).push(decision);
  return { fresh, earlier };
}
// The request's route: what decided (table row, must-echo) and where its bytes went.
function routeHeader(request) {
  const parts = [request.route ? request.route.header : 'route ' + request.route_key];
  if (request.route && request.route.sent_to) parts.push('sent to ' + request.route.sent_to);
  return el('div', { class: 'route', text: parts.join(' · ') });
}
function renderRequests(requests, messages) {
  return requests.map((request, position) => {
    const { fresh, earlier } = splitDecisions(request, requests[position - 1]);
    const rows = fresh.map((decision) => decisionRow(decision, messages));
    if (!request.decisions.length) rows.push(el('tr', {}, el('td', { colspan: '5', class: 'small', text: 'no reasoning carriers to replay (first request)' })));
    else if (!fresh.length) rows.push(el('tr', {}, el('td', { colspan: '5', class: 'small', text: 'no new decision' })));
    const head = el('tr', {}, ...['message', 'carrier', 'decision', 'reason', 'bytes'].map((name) => el('th', { text: name })));
    const folded = earlier.length
      ? el('details', { class: 'earlier', 'data-request-id': String(request.id) },
        el('summary', { text: earlier.length + ' earlier decision' + (earlier.length === 1 ? '' : 's') + ', as in request #' + requests[position - 1].id }),
        el('table', {}, el('tbody', {}, ...earlier.map((decision) => decisionRow(decision, messages)))))
      : null;
    return el('div', {}, el('div', { class: 'small', text: 'request #' + request.id + ' · ' + request.at + ' · HTTP ' + request.status }),
      routeHeader(request),
      request.error ? el('div', { class: 'error', 'data-provider-error': '', text: 'the provider answered: ' + request.error }) : null,
      el('table', { class: 'carriers', 'data-request-id': String(request.id) }, el('thead', {}, head), el('tbody', {}, ...rows)),
      folded);
  });
}
async function selectSession(id) {
  for (const button of document.querySelectorAll('#sessions button')) button.setAttribute('aria-current', String(button.dataset.sessionId === id));
  try {
    const [session, requests] = await Promise.all([api('/v1/sessions/' + encodeURIComponent(id)), api('/v1/sessions/' + encodeURIComponent(id) + '/requests')]);
    const lineage = 'parent ' + (session.parent_session_id || '-') + ' · children ' + (session.children.join(', ') || '-');
    $('detail').replaceChildren(
      el('h1', { text: session.title || session.id }),
      el('div', { class: 'small', text: session.id + ' · ' + (session.provider || '-') + ' · ' + (session.model || '-') + ' · ' + lineage }),
      el('h2', { text: 'Turns' }), ...renderTurns(session.messages),
      el('h2', { text: 'Carriers sent per request' }), ...renderRequests(requests.data, session.messages));
  } catch (error) { showError(error); }
}
$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('token').value);
  $('token').value = '';
  loadSessions();
});
$('refresh').addEventListener('click', loadSessions);
loadSessions();
`;

/** The inspector page HTML. */
export const INSPECTOR_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Hermes gateway inspector</title>
<style>${STYLE}</style>
</head>
<body>
<aside>
<h1>Sessions <button id="refresh" type="button" title="reload the list">↻</button></h1>
<form id="token-form" hidden><label>Gateway token <input id="token" type="password" autocomplete="off"></label> <button type="submit">Use</button></form>
<div id="status" class="error" role="status"></div>
<ul id="sessions"></ul>
</aside>
<main id="detail"><p class="small">Select a session to see its turns, reasoning and the carriers each request replayed.</p></main>
<script>${SCRIPT}</script>
</body>
</html>
`;

/**
 * Content-Security-Policy for the page: only its own inline style and script, and fetches to
 * its own origin; nothing else loads even if model text somehow reached the DOM as markup.
 */
export const INSPECTOR_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'";
