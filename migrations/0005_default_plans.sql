-- Default plans (7, 14 and 28 days per app), only for an app that has none yet; the owner edits
-- them from the admin billing page afterwards.
INSERT INTO plans (app, name, days, price_cents, active, sort_order, updated_at)
SELECT 'flex', v.name, v.days, v.price, 1, v.sort_order, unixepoch('subsec') * 1000
FROM (SELECT '1 week' AS name, 7 AS days, 3999 AS price, 1 AS sort_order
      UNION ALL SELECT '2 weeks', 14, 7499, 2
      UNION ALL SELECT '4 weeks', 28, 13999, 3) AS v
WHERE NOT EXISTS (SELECT 1 FROM plans WHERE app = 'flex');
--> statement-breakpoint
INSERT INTO plans (app, name, days, price_cents, active, sort_order, updated_at)
SELECT 'spark', v.name, v.days, v.price, 1, v.sort_order, unixepoch('subsec') * 1000
FROM (SELECT '1 week' AS name, 7 AS days, 2999 AS price, 1 AS sort_order
      UNION ALL SELECT '2 weeks', 14, 5499, 2
      UNION ALL SELECT '4 weeks', 28, 9999, 3) AS v
WHERE NOT EXISTS (SELECT 1 FROM plans WHERE app = 'spark');
