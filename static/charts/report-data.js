// What the charts read from the run's report besides their block's data: one block's data by number,
// and the note saying why a followed-request chart has nothing to draw.
// Leaves out: drawing (the chart modules) and the report's shape (py/inference_lab/entrypoints/report.py).

import { t } from '../words/i18n.js';

export function blockData(report, n) {
  const block = ((report && report.blocks) || []).find((b) => Number(b.number) === n);
  return block ? block.data || {} : null;
}

/** Why a followed-request chart has nothing to draw (report.follow says where it was refused). */
export function refusedNote(report, what) {
  const f = report.follow || {};
  const where = f.stage === 'gateway' ? t('chart.gateway') : f.stage === 'input' ? t('chart.duringInputPreparation') : '';
  const others = (f.served_ids || []).join(', ');
  return t('chart.followedRequest', { id: f.id || '?', code: f.code || '', where, what }) +
    (others ? t('chart.setFollowServedRequest', { others }) : '');
}
