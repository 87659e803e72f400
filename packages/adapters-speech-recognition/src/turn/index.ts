export { SMART_TURN, SmartTurnModel, smartTurnWindow, type SmartTurnOptions } from './smart-turn-model.js';
export { scanTurnModels, turnModelInFolder, type TurnModelEntry } from './turn-model-directory.js';
