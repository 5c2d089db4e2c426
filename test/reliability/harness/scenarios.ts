import type { Scenario } from './scenario-run';

/** The stories several reliability suites tell the pipeline. */

export const ONE_MESSAGE: Scenario = {
  name: 'one message',
  act: async (run) => {
    await run.send('Oi, quero um exame');
    await run.drain();
  },
};

export const BURST: Scenario = {
  name: 'a burst drained by one turn',
  act: async (run) => {
    await run.send('Oi');
    await run.send('Quero um exame');
    await run.drain();
  },
};

/** A customer whose conversation a human took over writes again: the message goes to the human inbox. */
export const HUMAN_INBOX: Scenario = {
  name: 'a message to the human inbox',
  setup: async (run) => {
    await run.send('Oi', run.clean);
    await run.drain(run.clean);
    await run.humanTakesOver();
  },
  act: async (run) => {
    await run.send('Alguém aí?');
    await run.drain();
  },
  answeredByAgent: ['Oi'],
};
