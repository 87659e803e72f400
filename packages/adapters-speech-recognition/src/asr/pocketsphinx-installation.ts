/** Debian's `pocketsphinx-en-us` package: the US English acoustic model, dictionary and language model. */
export const POCKETSPHINX_EN_US_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
export const POCKETSPHINX_EN_US_MODEL = `${POCKETSPHINX_EN_US_MODEL_DIR}/en-us`;
