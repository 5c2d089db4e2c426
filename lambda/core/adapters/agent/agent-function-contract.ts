// Apart from the adapter (lambda-invoke-agent.ts), which sends it: every function reads the
// setting at start-up, and only the orchestrator needs the adapter.

/**
 * Version 2 of the agent function's contract (`LAMBDA_AGENT_CONTRACT_VERSION` in
 * lambda-invoke-agent.ts is version 1): version 1 plus the attachments of customer messages, for a function
 * that opted in (`AgentBackend.fromFunction(fn, { contractVersion: 2 })`). It is sent only for a
 * turn whose history carries an attachment; every other turn is a version 1 event, byte for byte.
 * A function that did not opt in gets version 1 events only, each attachment described in its
 * entry's text. The response is the same as version 1's.
 *
 * A history entry of a customer message with an attachment carries `media`, one element per
 * attachment:
 * ```json
 * { "role": "customer", "text": "[image] meu exame", "at": "…",
 *   "media": [{ "kind": "image" | "video" | "audio" | "document" | "sticker", "state": "stored" | "pending" | "refused" | "failed",
 *               "mimeType": "image/jpeg", "filename": "…", "caption": "…", "sizeBytes": 183204, "voice": true,
 *               "transcript": "…", "url": "https://…", "urlExpiresAt": 1795000300000 }] }
 * ```
 * Only `kind` and `state` are always present. `url` (with `urlExpiresAt`, epoch milliseconds) is a
 * presigned GET of the stored object, valid for `LAMBDA_AGENT_MEDIA_URL_SECONDS` (lambda-invoke-agent.ts) seconds:
 * present when `state` is `stored`. `transcript` is a voice note's, when transcription is on.
 */
export const LAMBDA_AGENT_MEDIA_CONTRACT_VERSION = '2';
