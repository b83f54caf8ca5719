-- The payer chain (docs/admin.md, dashboard): each settled payment knows when its driver's previous
-- payment settled, so "drivers who paid in a range" is a count of the payments in the range whose
-- previous one settled before it, read from an index, with no DISTINCT over the range. Kept here,
-- by triggers, so every writer (the webhook, refunds, the seed, tests) gets it right. Order is
-- (settled_at, id), so two payments settled in the same millisecond still form a chain.
UPDATE `payments` SET `prev_settled_at` = (
  SELECT max(p.`settled_at`) FROM `payments` p
  WHERE p.`user_id` = `payments`.`user_id` AND p.`settled_at` IS NOT NULL
    AND (p.`settled_at` < `payments`.`settled_at` OR (p.`settled_at` = `payments`.`settled_at` AND p.`id` < `payments`.`id`))
) WHERE `settled_at` IS NOT NULL;
--> statement-breakpoint
CREATE TRIGGER `payments_chain_insert` AFTER INSERT ON `payments` WHEN NEW.`settled_at` IS NOT NULL BEGIN
  UPDATE `payments` SET `prev_settled_at` = (
    SELECT max(p.`settled_at`) FROM `payments` p
    WHERE p.`user_id` = NEW.`user_id` AND p.`settled_at` IS NOT NULL AND p.`id` <> NEW.`id`
      AND (p.`settled_at` < NEW.`settled_at` OR (p.`settled_at` = NEW.`settled_at` AND p.`id` < NEW.`id`))
  ) WHERE `id` = NEW.`id`;
  -- A payment that settled out of order becomes the previous one of the next.
  UPDATE `payments` SET `prev_settled_at` = NEW.`settled_at`
  WHERE `id` = (
    SELECT p.`id` FROM `payments` p
    WHERE p.`user_id` = NEW.`user_id` AND p.`settled_at` IS NOT NULL AND p.`id` <> NEW.`id`
      AND (p.`settled_at` > NEW.`settled_at` OR (p.`settled_at` = NEW.`settled_at` AND p.`id` > NEW.`id`))
    ORDER BY p.`settled_at`, p.`id` LIMIT 1
  );
END;
--> statement-breakpoint
CREATE TRIGGER `payments_chain_settle` AFTER UPDATE OF `settled_at` ON `payments`
WHEN NEW.`settled_at` IS NOT NULL AND (OLD.`settled_at` IS NULL OR OLD.`settled_at` <> NEW.`settled_at`) BEGIN
  UPDATE `payments` SET `prev_settled_at` = (
    SELECT max(p.`settled_at`) FROM `payments` p
    WHERE p.`user_id` = NEW.`user_id` AND p.`settled_at` IS NOT NULL AND p.`id` <> NEW.`id`
      AND (p.`settled_at` < NEW.`settled_at` OR (p.`settled_at` = NEW.`settled_at` AND p.`id` < NEW.`id`))
  ) WHERE `id` = NEW.`id`;
  UPDATE `payments` SET `prev_settled_at` = NEW.`settled_at`
  WHERE `id` = (
    SELECT p.`id` FROM `payments` p
    WHERE p.`user_id` = NEW.`user_id` AND p.`settled_at` IS NOT NULL AND p.`id` <> NEW.`id`
      AND (p.`settled_at` > NEW.`settled_at` OR (p.`settled_at` = NEW.`settled_at` AND p.`id` > NEW.`id`))
    ORDER BY p.`settled_at`, p.`id` LIMIT 1
  );
END;
