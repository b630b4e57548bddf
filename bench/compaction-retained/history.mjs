// A deterministic agent session of about N tokens (SPEC §15 estimate): each user turn is a tool
// loop of 2–6 calls (reasoning_content on each call, an opaque signed reasoning_details entry
// that costs nothing) with results of 300–3,000 tokens, then an answer. About 8K tokens a turn,
// as long coding sessions run.

/** A small seeded PRNG (LCG), so every run builds the same session. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Text of about `tokens` tokens (4 characters a token). */
function text(seed, tokens) {
  const unit = `step ${seed}: the tool printed more of the build log and the test output here. `;
  return unit.repeat(Math.ceil((tokens * 4) / unit.length)).slice(0, tokens * 4);
}

/** Messages of a session of about `target` tokens. */
export function agentSession(target) {
  const next = random(7);
  const messages = [
    { role: 'system', content: text(0, 1_200) },
    { role: 'user', content: 'Refactor the storage layer and keep the tests green.' },
  ];
  let tokens = 1_220;
  for (let turn = 1; tokens < target; turn += 1) {
    messages.push({ role: 'user', content: `Turn ${turn}: ${text(turn, 40 + Math.floor(next() * 200))}` });
    const calls = 2 + Math.floor(next() * 5);
    for (let call = 0; call < calls; call += 1) {
      const id = `call_${turn}_${call}`;
      const reasoning = text(turn * 10 + call, 200 + Math.floor(next() * 600));
      const result = text(turn * 100 + call, 300 + Math.floor(next() * 2_700));
      messages.push({
        role: 'assistant',
        content: null,
        reasoning_content: reasoning,
        reasoning_details: [{ type: 'reasoning.encrypted', data: `gAAAA${'x'.repeat(3_000)}`, index: 0 }],
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name: 'read_file', arguments: `{"path":"src/module-${turn}-${call}.ts"}` },
          },
        ],
      });
      messages.push({ role: 'tool', tool_call_id: id, tool_name: 'read_file', content: result });
      tokens += (reasoning.length + result.length) / 4;
    }
    const answer = text(turn + 7, 150);
    messages.push({ role: 'assistant', content: answer, reasoning_content: 'Done with this turn.' });
    tokens += answer.length / 4;
  }
  return messages;
}
