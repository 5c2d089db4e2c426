// Stands in for `@smithy/core/event-streams` in the Lambda bundles (see bundle-lambdas.mjs): no
// function streams. The SDK's protocols load it on demand (`await import(...)`) only for an
// operation with an event-stream input or output; the DynamoDB, SQS, Secrets Manager and End User
// Messaging calls of the functions have none, and Converse is made without the Bedrock client. A
// client that imported it at construction would fail the build (a missing export), and a
// streaming call would fail here with a message that says what to change.
const notBundled = () => {
  throw new Error('Event streams are not bundled with this function: remove the @smithy/core/event-streams alias in scripts/bundle-lambdas.mjs');
};

export class EventStreamSerde {
  constructor() {
    notBundled();
  }
}

export const eventStreamSerdeProvider = notBundled;
