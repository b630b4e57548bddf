import { describe, expect, test } from 'vitest';
import { anthropicEndpointClass, anthropicPlatform } from '../../src/replay/anthropic-endpoint-route.js';
import {
  bedrockRegionOf,
  hostMatches,
  hostnameOf,
  isLocalEndpoint,
  isLocalHostname,
  pathOf,
} from '../../src/replay/replay-host.js';
import { parseRouteKey, routeKeyOf, routeKeyString } from '../../src/replay/replay-route-key.js';

describe('SPEC §3.1 host matching', () => {
  test.each([
    ['https://api.deepseek.com/v1', 'api.deepseek.com', true],
    ['https://API.DeepSeek.com', 'api.deepseek.com', true],
    ['api.deepseek.com', 'api.deepseek.com', true],
    ['api.deepseek.com/v1', 'api.deepseek.com', true],
    ['https://eu.api.deepseek.com', 'api.deepseek.com', true],
    ['https://user:pw@openrouter.ai:443/api/v1', 'openrouter.ai', true],
    ['https://evil.example/api.deepseek.com', 'api.deepseek.com', false],
    ['https://api.deepseek.com.evil.example', 'api.deepseek.com', false],
    ['https://evil.example/?host=api.deepseek.com', 'api.deepseek.com', false],
    ['https://notopenrouter.ai', 'openrouter.ai', false],
    ['', 'openrouter.ai', false],
    [undefined, 'openrouter.ai', false],
  ])('%s matches %s: %s', (baseUrl, domain, expected) => {
    expect(hostMatches(baseUrl, domain)).toBe(expected);
  });

  test.each([
    ['http://[::1]:8080/v1', '::1'],
    ['localhost:11434', 'localhost'],
    ['https://Example.COM/x', 'example.com'],
    [undefined, ''],
    ['   ', ''],
  ])('hostnameOf(%s) is %s', (baseUrl, host) => {
    expect(hostnameOf(baseUrl)).toBe(host);
  });
});

describe('SPEC §3.2 local endpoint detection', () => {
  test.each([
    ['http://localhost:11434/v1', true],
    ['http://127.0.0.1:8080/v1', true],
    ['http://[::1]:8000', true],
    ['http://0.0.0.0:8000/', true],
    ['http://host.docker.internal:1234/v1', true],
    ['http://vm.lima.internal', true],
    ['http://box.containers.internal', true],
    ['http://studio.local:1234', true],
    ['http://ollama:11434', true],
    ['ollama:11434', true],
    ['http://10.1.2.3/v1', true],
    ['http://172.16.0.9', true],
    ['http://172.31.255.1', true],
    ['http://192.168.1.20:8080', true],
    ['http://169.254.10.10', true],
    ['http://100.64.1.1', true],
    ['http://100.127.255.254', true],
    ['http://[fd00::1]:8000', true],
    ['http://[fe80::1]', true],
    ['http://192.168.1.300', true],
    ['http://10.0.0.999', true],
    ['  http://localhost:1234/  ', true],
    ['http://172.32.0.1', false],
    ['http://100.128.0.1', false],
    ['http://8.8.8.8', false],
    ['http://[2001:4860::8888]', false],
    ['https://api.openai.com/v1', false],
    ['https://openrouter.ai/api/v1', false],
    ['', false],
    ['http://', false],
    [undefined, false],
  ])('%s is local: %s', (baseUrl, expected) => {
    expect(isLocalEndpoint(baseUrl)).toBe(expected);
  });
});

describe('SPEC §3.2 rules 4–5: IP literals are classified as Python ipaddress parses them', () => {
  test.each([
    // rule 4, IPv6 in every spelling the prior art's parser accepts
    ['http://[0:0:0:0:0:0:0:1]:8000', true],
    ['http://[0::1]', true],
    ['http://[::ffff:7f00:1]', true],
    ['http://[::ffff:10.0.0.1]', true],
    ['http://[::ffff:8.8.8.8]', false],
    ['http://[fe80::1%25eth0]:8080', true],
    ['http://[FEBF::1]', true],
    ['http://[fec0::1]', false],
    ['http://[2001:db8::1]', true],
    ['http://[100::1]', true],
    ['http://[2001:4860::8888]', false],
    ['http://[::ffff:not-an-ip]', false],
    // rule 4, IPv4 special ranges: 192.0.0.0/29 and 192.0.0.170/31 only
    ['http://192.0.0.7', true],
    ['http://192.0.0.9', false],
    ['http://192.0.0.171', true],
    // rule 5: leading zeros fail IP parsing, so only the first-two-octet test applies
    ['http://127.0.0.01', false],
    ['http://010.0.0.1', true],
    ['http://192.168.01.1', true],
    ['http://0.0.0.00', false],
  ])('%s is local: %s', (baseUrl, expected) => {
    expect(isLocalEndpoint(baseUrl)).toBe(expected);
  });
});

describe('SPEC §3.3 route key', () => {
  test('provider lower-cased and trimmed, host from the URL, model trimmed but not lower-cased', () => {
    const key = routeKeyOf('  OpenRouter ', 'https://OpenRouter.ai/api/v1', ' Anthropic/Claude-Sonnet-4 ');
    expect(key).toEqual({ provider: 'openrouter', host: 'openrouter.ai', model: 'Anthropic/Claude-Sonnet-4' });
    expect(routeKeyString(key)).toBe('openrouter|openrouter.ai|Anthropic/Claude-Sonnet-4');
  });

  test('no base URL gives an empty host', () => {
    expect(routeKeyString(routeKeyOf('deepseek', undefined, 'deepseek-v4'))).toBe('deepseek||deepseek-v4');
  });

  test.each([
    ['openrouter|openrouter.ai|openai/gpt-5', { provider: 'openrouter', host: 'openrouter.ai', model: 'openai/gpt-5' }],
    ['deepseek||deepseek-v4', { provider: 'deepseek', host: '', model: 'deepseek-v4' }],
    ['custom|10.0.0.2|weird|model', { provider: 'custom', host: '10.0.0.2', model: 'weird|model' }],
    ['nopipes', null],
    ['one|pipe', null],
    ['|host|model', null],
  ])('parseRouteKey(%s)', (text, expected) => {
    expect(parseRouteKey(text)).toEqual(expected);
  });

  test('string form round-trips', () => {
    const key = routeKeyOf('Groq', 'https://api.groq.com/openai/v1', 'openai/gpt-oss-120b');
    expect(parseRouteKey(routeKeyString(key))).toEqual(key);
  });
});

describe('one host module: host-level forms of SPEC §3.1–§3.2', () => {
  test.each([
    ['localhost', true],
    ['[::1]', true],
    ['::1', true],
    ['10.0.0.7', true],
    ['169.254.10.10', true],
    ['ollama', true],
    ['api.anthropic.com', false],
    ['2606:4700::1', false],
    ['', false],
  ])('isLocalHostname(%s) is %s', (host, expected) => {
    expect(isLocalHostname(host)).toBe(expected);
  });

  test('isLocalHostname agrees with isLocalEndpoint on the hostname of the URL', () => {
    for (const url of ['http://[fd00::1]:8000', 'http://192.168.1.300', 'http://8.8.8.8', 'http://studio.local:1'])
      expect(isLocalHostname(hostnameOf(url))).toBe(isLocalEndpoint(url));
  });

  test.each([
    ['https://x.services.ai.azure.com/anthropic/v1?api-version=1', '/anthropic/v1'],
    ['api.deepseek.com/anthropic', '/anthropic'],
    ['https://api.anthropic.com', ''],
    ['https://host?x=/anthropic', ''],
    [undefined, ''],
  ])('pathOf(%s) is %s', (baseUrl, path) => {
    expect(pathOf(baseUrl)).toBe(path);
  });

  test.each([
    ['https://bedrock-runtime.us-west-2.amazonaws.com', 'us-west-2'],
    ['https://bedrock-runtime-fips.us-east-1.amazonaws.com/model/x/invoke', 'us-east-1'],
    ['https://bedrock-runtime.cn-north-1.amazonaws.com.cn', 'cn-north-1'],
    ['https://bedrock-runtime.us-west-2.amazonaws.com.evil.example', undefined],
    ['http://127.0.0.1:9000', undefined],
    [undefined, undefined],
  ])('bedrockRegionOf(%s) is %s', (baseUrl, region) => {
    expect(bedrockRegionOf(baseUrl)).toBe(region);
  });

  test('SPEC §9.2 / §23.2: Anthropic platform and endpoint class use the same local detection', () => {
    expect(anthropicPlatform('http://127.0.0.1:8080', 'bedrock')).toBe('bedrock');
    expect(anthropicPlatform('http://[::1]:8080', 'vertex')).toBe('vertex');
    expect(anthropicPlatform('https://proxy.example.com', 'bedrock')).toBe('compatible');
    // A stamp's host with or without IPv6 brackets names the same endpoint class.
    expect(anthropicEndpointClass('[::1]', 'bedrock')).toBe(anthropicEndpointClass('::1', 'bedrock'));
    expect(anthropicEndpointClass('proxy.example.com')).toBe('host:proxy.example.com');
  });
});
