export { ReadyBanner } from "./components/ReadyBanner";
