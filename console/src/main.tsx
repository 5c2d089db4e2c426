import { render } from 'preact';
import { App, startingLanguage } from './app';
import { loadLanguage } from './i18n';
import './styles.css';

// The page preloads the pipeline's language, so its words are usually here before they are asked for.
const language = startingLanguage();
await loadLanguage(language);
render(<App initialLanguage={language} />, document.getElementById('app') as HTMLElement);
