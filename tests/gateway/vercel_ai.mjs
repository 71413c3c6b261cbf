// Vercel AI SDK client for tests/gateway/test_gateway_vercel.py: one provider, four calls
// through the gateway, in this order (the test queues the upstream's four answers to match):
//   generateText (text), generateText (a tool call), streamText (text), streamText (a tool call).
// Usage: node vercel_ai.mjs '{"provider": "openai"|"anthropic", "baseURL": ..., "apiKey": ..., "model": ...}'
// Prints one JSON object: what the SDK handed its caller for each call.
// API: https://ai-sdk.dev/docs/reference/ai-sdk-core/generate-text and .../stream-text (AI SDK 6).
import { generateText, jsonSchema, streamText, tool } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";

const args = JSON.parse(process.argv[2]);
const model =
  args.provider === "openai"
    ? createOpenAI({ baseURL: args.baseURL, apiKey: args.apiKey }).chat(args.model) // Chat Completions, not Responses
    : createAnthropic({ baseURL: args.baseURL, apiKey: args.apiKey })(args.model);

// no `execute`: the SDK returns the call to its caller instead of running it
const tools = {
  get_weather: tool({
    description: "Weather for a city",
    inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
  }),
};
const prompt = [{ role: "system", content: "Be brief." }, { role: "user", content: "Weather in Paris?" }];
const common = { model, messages: prompt, maxOutputTokens: 64, maxRetries: 0 };

function usage(u) {
  return { inputTokens: u.inputTokens, outputTokens: u.outputTokens, totalTokens: u.totalTokens };
}

function calls(toolCalls) {
  return toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input }));
}

async function generate(withTools) {
  const r = await generateText({ ...common, ...(withTools ? { tools, toolChoice: "required" } : {}) });
  return { text: r.text, finishReason: r.finishReason, usage: usage(r.usage), toolCalls: calls(r.toolCalls) };
}

async function stream(withTools) {
  const errors = [];
  const s = streamText({
    ...common,
    ...(withTools ? { tools, toolChoice: "required" } : {}),
    onError: ({ error }) => errors.push(String(error && error.message ? error.message : error)),
  });
  const deltas = [];
  const parts = [];
  for await (const part of s.fullStream) {
    parts.push(part.type);
    if (part.type === "text-delta") deltas.push(part.text);
  }
  return {
    deltas, parts, errors,
    text: await s.text, finishReason: await s.finishReason, usage: usage(await s.totalUsage), toolCalls: calls(await s.toolCalls),
  };
}

async function run(name, fn) {
  try {
    return await fn();
  } catch (error) {
    return { error: `${error.name}: ${error.message}`, status: error.statusCode ?? null };
  }
}

const out = {
  generate: await run("generate", () => generate(false)),
  generateTool: await run("generateTool", () => generate(true)),
  stream: await run("stream", () => stream(false)),
  streamTool: await run("streamTool", () => stream(true)),
};
process.stdout.write(JSON.stringify(out));
