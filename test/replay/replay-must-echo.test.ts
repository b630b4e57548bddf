import { describe, expect, test } from 'vitest';
import {
  MUST_ECHO_FAMILIES,
  REASONING_ECHO_PAD,
  familyRule,
  isMustEcho,
  mustEchoFamily,
} from '../../src/replay/replay-must-echo.js';

describe('SPEC §4 must-echo tier', () => {
  test.each([
    // row 1: kimi (exact provider ids, hosts, no model substring)
    ['kimi-coding', 'k2', undefined, 'kimi'],
    ['kimi-coding-cn', 'k2', undefined, 'kimi'],
    ['KIMI-CODING', 'k2', undefined, null],
    ['custom', 'k2', 'https://api.kimi.com/coding/v1', 'kimi'],
    ['custom', 'x', 'https://api.moonshot.ai/v1', 'kimi'],
    ['custom', 'x', 'https://api.moonshot.cn/v1', 'kimi'],
    ['openrouter', 'moonshotai/kimi-k2-thinking', 'https://openrouter.ai/api/v1', null],
    // row 2: deepseek (provider lower-cased, model substring, host)
    ['deepseek', 'anything', undefined, 'deepseek'],
    ['DeepSeek', 'anything', undefined, 'deepseek'],
    ['openrouter', 'deepseek/deepseek-r1', undefined, 'deepseek'],
    ['custom', 'DeepSeek-V4-Pro', 'https://foundry.azure.com', 'deepseek'],
    ['custom', 'x', 'https://api.deepseek.com/v1', 'deepseek'],
    ['custom', 'x', 'https://evil.example/api.deepseek.com', null],
    ['custom', 'x', 'https://api.deepseek.com.evil.example', null],
    // row 3: mimo
    ['xiaomi', 'x', undefined, 'mimo'],
    ['Xiaomi', 'x', undefined, 'mimo'],
    ['openrouter', 'xiaomi/MiMo-7B', undefined, 'mimo'],
    ['custom', 'x', 'https://api.xiaomimimo.com/v1', 'mimo'],
    ['custom', 'x', 'https://xiaomimimo.com', 'mimo'],
    // row 4: missingno
    ['nous', 'stealth/missingno', undefined, 'missingno'],
    ['nous', 'Stealth/MissingNo-2', undefined, 'missingno'],
    // first match wins: a DeepSeek model on a Kimi host is reported as kimi
    ['custom', 'deepseek-v3', 'https://api.moonshot.ai/v1', 'kimi'],
    // not in the tier
    ['openai', 'gpt-5', undefined, null],
    ['mistral', 'magistral', undefined, null],
  ])('provider %s, model %s, base %s → %s', (provider, model, baseUrl, family) => {
    expect(mustEchoFamily(provider, model, baseUrl)).toBe(family);
    expect(isMustEcho(provider, model, baseUrl)).toBe(family !== null);
  });

  test('padding is exactly one space', () => {
    expect(REASONING_ECHO_PAD).toBe(' ');
  });

  test('familyRule returns each row and throws on an unknown family', () => {
    for (const family of MUST_ECHO_FAMILIES) expect(familyRule(family.name)).toBe(family);
    expect(() => familyRule('qwen')).toThrow(/unknown must-echo family "qwen"/);
  });

  test('SPEC §23.4: a user route row can add or remove must-echo', () => {
    expect(
      mustEchoFamily('acme', 'm', 'https://llm.acme.test', {
        overrides: [{ hosts: ['acme.test'], carriers: ['reasoning_content'], mustEcho: true }],
      }),
    ).toBe('override');
    expect(
      isMustEcho('deepseek', 'deepseek-v4', undefined, {
        overrides: [{ providers: ['DeepSeek'], carriers: ['reasoning_content'], mustEcho: false }],
      }),
    ).toBe(false);
    // A row without mustEcho leaves the built-in tier in charge.
    expect(isMustEcho('deepseek', 'x', undefined, { overrides: [{ providers: ['deepseek'], carriers: [] }] })).toBe(
      true,
    );
  });
});
