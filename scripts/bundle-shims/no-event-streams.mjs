// Stands in for `@smithy/core/event-streams` in the Lambda bundles whose AWS clients never stream
// (see bundle-lambdas.mjs): every function but the orchestrator, whose Bedrock client needs it. The
// SDK's protocols load it on demand (`await import(...)`) only for an operation with an event-stream
// input or output; DynamoDB, SQS, Secrets Manager and End User Messaging have none that the
// functions call. A client that imported it at construction would fail the build (a missing
// export), and a streaming call would fail here with a message that says what to change.
const notBundled = () => {
  throw new Error('Event streams are not bundled with this function: remove the @smithy/core/event-streams alias for it in scripts/bundle-lambdas.mjs');
};

export class EventStreamSerde {
  constructor() {
    notBundled();
  }
}

export const eventStreamSerdeProvider = notBundled;
