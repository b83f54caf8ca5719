-- The user tallies (docs/admin.md, dashboard): how many accounts there are of each kind, so the
-- dashboard's drivers, "system on" and "disconnected" read a few rows instead of counting every
-- account. Kept here, by triggers, so every writer (sign-up, the engine, the seed, tests) keeps
-- them right; an update moves the account from its old kind to its new one.
INSERT INTO `user_tallies` (`app`, `is_admin`, `status`, `account_connected`, `phone_verified`, `n`)
SELECT `app`, `is_admin`, `status`, `account_connected`, `phone_verified`, count(*) FROM `users`
GROUP BY `app`, `is_admin`, `status`, `account_connected`, `phone_verified`;
--> statement-breakpoint
CREATE TRIGGER `user_tallies_insert` AFTER INSERT ON `users` BEGIN
  INSERT INTO `user_tallies` (`app`, `is_admin`, `status`, `account_connected`, `phone_verified`, `n`)
  VALUES (NEW.`app`, NEW.`is_admin`, NEW.`status`, NEW.`account_connected`, NEW.`phone_verified`, 1)
  ON CONFLICT (`app`, `is_admin`, `status`, `account_connected`, `phone_verified`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `user_tallies_delete` AFTER DELETE ON `users` BEGIN
  UPDATE `user_tallies` SET `n` = `n` - 1
  WHERE `app` = OLD.`app` AND `is_admin` = OLD.`is_admin` AND `status` = OLD.`status`
    AND `account_connected` = OLD.`account_connected` AND `phone_verified` = OLD.`phone_verified`;
END;
--> statement-breakpoint
CREATE TRIGGER `user_tallies_update` AFTER UPDATE OF `app`, `is_admin`, `status`, `account_connected`, `phone_verified` ON `users`
WHEN OLD.`app` IS NOT NEW.`app` OR OLD.`is_admin` IS NOT NEW.`is_admin` OR OLD.`status` IS NOT NEW.`status`
  OR OLD.`account_connected` IS NOT NEW.`account_connected` OR OLD.`phone_verified` IS NOT NEW.`phone_verified` BEGIN
  UPDATE `user_tallies` SET `n` = `n` - 1
  WHERE `app` = OLD.`app` AND `is_admin` = OLD.`is_admin` AND `status` = OLD.`status`
    AND `account_connected` = OLD.`account_connected` AND `phone_verified` = OLD.`phone_verified`;
  INSERT INTO `user_tallies` (`app`, `is_admin`, `status`, `account_connected`, `phone_verified`, `n`)
  VALUES (NEW.`app`, NEW.`is_admin`, NEW.`status`, NEW.`account_connected`, NEW.`phone_verified`, 1)
  ON CONFLICT (`app`, `is_admin`, `status`, `account_connected`, `phone_verified`) DO UPDATE SET `n` = `n` + 1;
END;
