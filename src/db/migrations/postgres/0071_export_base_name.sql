-- The base name of an export's files (`POST /users/download_full_data_when_CGU_refused` names
-- its files after the company and the period); NULL: `rapport_activités`, the activity report's.
-- Kept in lock-step with ../sqlite/0071_export_base_name.sql.
ALTER TABLE exports ADD COLUMN base_name TEXT;
