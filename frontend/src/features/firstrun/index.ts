// What other parts may use of the first run: the Overview's card.
export { FirstRunCard } from "./components/FirstRunCard";
