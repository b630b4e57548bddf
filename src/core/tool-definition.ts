import type { JsonObject } from './json.js';

/** A tool offered to the model: name, description and a JSON-schema for its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: JsonObject;
}
