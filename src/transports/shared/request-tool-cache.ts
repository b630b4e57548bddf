import type { JsonObject } from '../../core/json.js';
import type { ToolDefinition } from '../../core/tool-definition.js';
import { markStableWireValue } from './request-body.js';

/**
 * Per-tool wire objects, reused across requests (see request-body.ts). A tool definition is
 * lowered once per encoder and its wire object is declared stable, so every later request that
 * offers the same tool splices in the JSON text (and bytes) the first one wrote: the built-in
 * tools' schemas are most of a short session's body.
 *
 * Rule: a `ToolDefinition` is never written to once a request offered it (the built-in tools are
 * module constants; a client's tools are parsed per request), and `lower` depends on the
 * definition alone.
 */
export class ToolWireCache<Wire extends object> {
  private readonly entries = new WeakMap<ToolDefinition, Wire>();

  constructor(private readonly lower: (tool: ToolDefinition) => Wire) {}

  /** The wire objects of `tools`, in order. */
  wire(tools: readonly ToolDefinition[]): Wire[] {
    const wire: Wire[] = [];
    for (const tool of tools) {
      let cached = this.entries.get(tool);
      if (cached === undefined) {
        cached = this.lower(tool);
        markStableWireValue(cached as unknown as JsonObject);
        this.entries.set(tool, cached);
      }
      wire.push(cached);
    }
    return wire;
  }
}
